import { Body, Controller, Delete, Get, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthUser, CurrentUser } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { AddressesService } from './addresses.service.js';
import { AddressResponseDto, CreateAddressDto, UpdateAddressDto } from './dto/address.dto.js';

const NOT_FOUND = 'Address 7 not found';
const BAD_ID = { 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } };

@ApiTags('addresses')
@ApiBearerAuth()
@Controller('me/addresses')
export class AddressesController {
  constructor(private readonly addresses: AddressesService) {}

  @Get()
  @ApiOperation({
    summary: 'The caller’s address book',
    description: 'Every address of the caller (at most 20, one page), id ascending.',
  })
  @ApiEnvelope(AddressResponseDto, { list: true })
  @ApiErrors(401, 429)
  list(@CurrentUser() user: AuthUser): Promise<Paginated<AddressResponseDto>> {
    return this.addresses.list(user.id);
  }

  @Post()
  @ApiOperation({
    summary: 'Add an address to the caller’s address book',
    description:
      'The first address is the default; `is_default: true` makes a later one the default and the previous ' +
      'default stops being one. At most 20 addresses per account (400 naming `addresses`, rule `maxCount`).',
  })
  @ApiEnvelope(AddressResponseDto, { status: 201 })
  @ApiErrors(400, 401, 429, {
    400: {
      field: 'country',
      rule: 'isCountryCode',
      message: 'country must be an ISO 3166-1 alpha-2 country code in upper case',
    },
  })
  create(@CurrentUser() user: AuthUser, @Body() dto: CreateAddressDto): Promise<AddressResponseDto> {
    return this.addresses.create(user.id, dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read one of the caller’s addresses (another user’s is 404)' })
  @ApiEnvelope(AddressResponseDto)
  @ApiErrors(400, 401, 404, 429, { ...BAD_ID, 404: NOT_FOUND })
  get(@CurrentUser() user: AuthUser, @IdParam() id: number): Promise<AddressResponseDto> {
    return this.addresses.get(user.id, id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Change one of the caller’s addresses',
    description:
      'Partial: only the fields sent change. `is_default: true` moves the default here; `is_default: false` on ' +
      'the default leaves the account without one.',
  })
  @ApiEnvelope(AddressResponseDto)
  @ApiErrors(400, 401, 404, 429, {
    400: { field: 'line1', rule: 'minLength', message: 'line1 must be longer than or equal to 1 characters' },
    404: NOT_FOUND,
  })
  update(
    @CurrentUser() user: AuthUser,
    @IdParam() id: number,
    @Body() dto: UpdateAddressDto,
  ): Promise<AddressResponseDto> {
    return this.addresses.update(user.id, id, dto);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete one of the caller’s addresses',
    description: 'Deleting the default leaves the account without one; no other address becomes the default.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 404, 429, { ...BAD_ID, 404: NOT_FOUND })
  remove(@CurrentUser() user: AuthUser, @IdParam() id: number): Promise<void> {
    return this.addresses.remove(user.id, id);
  }
}
