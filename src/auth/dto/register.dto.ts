import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';

export class RegisterDto {
  @ApiProperty({ minLength: 3, maxLength: 32, pattern: '^[A-Za-z0-9_.-]+$', example: 'jane_doe' })
  @IsString()
  @Length(3, 32)
  @Matches(/^[A-Za-z0-9_.-]+$/, { message: 'username may contain only letters, digits, _ . and -' })
  username: string;

  @ApiProperty({ maxLength: 254, example: 'jane@example.com' })
  @IsString()
  @MaxLength(254)
  @IsEmail({ allow_utf8_local_part: false }, { message: 'email must be a valid email address' })
  email: string;

  @ApiProperty({ minLength: 8, maxLength: 128, example: 'correct horse battery' })
  @IsString()
  @Length(8, 128)
  password: string;

  @ApiPropertyOptional({ maxLength: 50, example: 'Jane' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  first_name?: string;

  @ApiPropertyOptional({ maxLength: 50, example: 'Doe' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  last_name?: string;

  @ApiPropertyOptional({ maxLength: 20, example: '+1 555 0100' })
  @IsOptional()
  @IsString()
  @MaxLength(20)
  phone?: string;

  @ApiPropertyOptional({ maxLength: 255, example: '1 Main St, Springfield' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  address?: string;
}
