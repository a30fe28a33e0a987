import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { PageQueryDto } from '../common/pagination.js';
import { CustomerGroupsService } from './customer-groups.service.js';
import {
  CreateCustomerGroupDto,
  CustomerGroupMemberResponseDto,
  CustomerGroupMembersDto,
  CustomerGroupResponseDto,
  UpdateCustomerGroupDto,
} from './dto/customer-group.dto.js';

const NOT_FOUND = 'Customer group 3 not found';
const BAD_ID = { field: 'id', rule: 'isInt', message: 'id must be an integer number' };
const UNKNOWN_USER = { field: 'user_ids', rule: 'exists', message: 'user_ids names no account: 404' };

@ApiTags('customer-groups')
@ApiBearerAuth()
@Roles('admin')
@Controller('customer-groups')
export class CustomerGroupsController {
  constructor(private readonly groups: CustomerGroupsService) {}

  @Get()
  @ApiOperation({ summary: 'List customer groups (admin)', description: 'Id order.' })
  @ApiEnvelope(CustomerGroupResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'page_size', rule: 'min', message: 'page_size must not be less than 1' },
  })
  list(@Query() query: PageQueryDto): Promise<Paginated<CustomerGroupResponseDto>> {
    return this.groups.list(query);
  }

  @Post()
  @ApiOperation({ summary: 'Create a customer group (admin)' })
  @ApiEnvelope(CustomerGroupResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'name', rule: 'minLength', message: 'name must be longer than or equal to 1 characters' },
  })
  create(@Body() dto: CreateCustomerGroupDto): Promise<CustomerGroupResponseDto> {
    return this.groups.create(dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a customer group (admin)' })
  @ApiEnvelope(CustomerGroupResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { 400: BAD_ID, 404: NOT_FOUND })
  get(@IdParam() id: number): Promise<CustomerGroupResponseDto> {
    return this.groups.get(id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update a customer group (admin)',
    description: 'Partial: only the fields sent change.',
  })
  @ApiEnvelope(CustomerGroupResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { 400: BAD_ID, 404: NOT_FOUND })
  update(@IdParam() id: number, @Body() dto: UpdateCustomerGroupDto): Promise<CustomerGroupResponseDto> {
    return this.groups.update(id, dto);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a customer group (admin)',
    description:
      'Its memberships go with it. Refused while a price list or a promotion is limited to the group (400 ' +
      'naming `id`, rule `inUse`): take the group out of them first.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'id',
      rule: 'inUse',
      message: 'customer group 3 is used by a price list or a promotion: take it out of them first',
    },
    404: NOT_FOUND,
  })
  remove(@IdParam() id: number): Promise<void> {
    return this.groups.remove(id);
  }

  @Get(':id/customers')
  @ApiOperation({ summary: "List a customer group's members (admin)", description: 'User id order.' })
  @ApiEnvelope(CustomerGroupMemberResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 404, 429, { 400: BAD_ID, 404: NOT_FOUND })
  members(
    @IdParam() id: number,
    @Query() query: PageQueryDto,
  ): Promise<Paginated<CustomerGroupMemberResponseDto>> {
    return this.groups.members(id, query);
  }

  @Post(':id/customers')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Add customers to a group (admin)',
    description:
      'Idempotent: an account already in the group stays there once. Every id must name an account (400 ' +
      'naming `user_ids`, rule `exists`; nothing is added then). Answers the group.',
  })
  @ApiEnvelope(CustomerGroupResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { 400: UNKNOWN_USER, 404: NOT_FOUND })
  addMembers(@IdParam() id: number, @Body() dto: CustomerGroupMembersDto): Promise<CustomerGroupResponseDto> {
    return this.groups.addMembers(id, dto.user_ids);
  }

  @Delete(':id/customers')
  @ApiOperation({
    summary: 'Remove customers from a group (admin)',
    description:
      'Accounts not in the group are ignored; every id must name an account (400 naming `user_ids`, rule ' +
      '`exists`). Answers the group.',
  })
  @ApiEnvelope(CustomerGroupResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { 400: UNKNOWN_USER, 404: NOT_FOUND })
  removeMembers(
    @IdParam() id: number,
    @Body() dto: CustomerGroupMembersDto,
  ): Promise<CustomerGroupResponseDto> {
    return this.groups.removeMembers(id, dto.user_ids);
  }
}
