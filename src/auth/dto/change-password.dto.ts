import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { CodePointLength } from '../../common/validation.js';

export class ChangePasswordDto {
  @ApiProperty({ example: 'correct horse battery' })
  @IsString()
  @CodePointLength(1, 128)
  current_password: string;

  /** The rule of `password` at registration. */
  @ApiProperty({ minLength: 8, maxLength: 128, example: 'another horse battery' })
  @IsString()
  @CodePointLength(8, 128)
  new_password: string;
}
