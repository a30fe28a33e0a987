import { ApiProperty, PartialType } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsString, Max, Min } from 'class-validator';
import { CodePointLength, NoInvisibleCharacters } from '../../common/validation.js';

/** Most user ids one membership change may name. */
export const MAX_MEMBERS_PER_CHANGE = 1000;

export class CreateCustomerGroupDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Wholesale' })
  @IsString()
  @CodePointLength(1, 100)
  @NoInvisibleCharacters()
  name: string;
}

export class UpdateCustomerGroupDto extends PartialType(CreateCustomerGroupDto, {
  skipNullProperties: false,
}) {}

export class CustomerGroupMembersDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'integer', minimum: 1 },
    minItems: 1,
    maxItems: MAX_MEMBERS_PER_CHANGE,
    example: [7, 12],
    description: 'Ids of existing (not deleted) user accounts (400 naming `user_ids`, rule `exists`)',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_MEMBERS_PER_CHANGE)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(2_147_483_647, { each: true })
  user_ids: number[];
}

export class CustomerGroupResponseDto {
  @ApiProperty({ type: 'integer', example: 3 }) id: number;
  @ApiProperty({ example: 'Wholesale' }) name: string;
  @ApiProperty({ type: 'integer', example: 12, description: 'How many accounts are in the group' })
  customer_count: number;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

/** A member of a group: the account's id, username and e-mail. */
export class CustomerGroupMemberResponseDto {
  @ApiProperty({ type: 'integer', example: 7 }) id: number;
  @ApiProperty({ example: 'jane_doe' }) username: string;
  @ApiProperty({ format: 'email', example: 'jane@example.com' }) email: string;
}
