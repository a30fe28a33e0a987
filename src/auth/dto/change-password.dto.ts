import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export class ChangePasswordDto {
  @ApiProperty({ example: 'correct horse battery' })
  @IsString()
  @Length(1, 128)
  current_password: string;

  /** The rule of `password` at registration. */
  @ApiProperty({ minLength: 8, maxLength: 128, example: 'another horse battery' })
  @IsString()
  @Length(8, 128)
  new_password: string;
}
