import { Body, Controller, Delete, Get, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthUser, CurrentUser, Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { SearchPageQueryDto } from '../common/pagination.js';
import { UpdateUserDto } from './dto/update-user.dto.js';
import { UserResponseDto } from './dto/user-response.dto.js';
import { UsersService } from './users.service.js';

@ApiTags('users')
@ApiBearerAuth()
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @Roles('admin')
  @ApiOperation({
    summary: 'List users (admin)',
    description:
      'Ordered by id. `search` is a case-insensitive substring of username, email, first or last name.',
  })
  @ApiEnvelope(UserResponseDto, { list: true, description: 'Users without phone and address' })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'page_size', rule: 'max', message: 'page_size must not be greater than 100' },
  })
  list(@Query() query: SearchPageQueryDto): Promise<Paginated<UserResponseDto>> {
    return this.users.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a user (own record, or any as admin)' })
  @ApiEnvelope(UserResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    ...{ 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } },
    404: 'User 7 not found',
  })
  get(@IdParam() id: number, @CurrentUser() actor: AuthUser): Promise<UserResponseDto> {
    return this.users.get(id, actor);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update a user (own record, or any as admin)',
    description:
      'Partial: only the fields sent change. `role` and `is_active` may be sent by admins only. The last ' +
      'active admin cannot lose its role or be deactivated (400, rule `lastAdmin`).',
  })
  @ApiEnvelope(UserResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'first_name',
      rule: 'maxLength',
      message: 'first_name must be shorter than or equal to 50 characters',
    },
    404: 'User 7 not found',
  })
  update(
    @IdParam() id: number,
    @Body() dto: UpdateUserDto,
    @CurrentUser() actor: AuthUser,
  ): Promise<UserResponseDto> {
    return this.users.update(id, dto, actor);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a user (soft delete; own record, or any as admin)',
    description: 'The last active admin cannot be deleted (400 naming `id`, rule `lastAdmin`).',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, {
    ...{ 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } },
    404: 'User 7 not found',
  })
  remove(@IdParam() id: number, @CurrentUser() actor: AuthUser): Promise<void> {
    return this.users.remove(id, actor);
  }
}
