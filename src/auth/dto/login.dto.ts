import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { UserResponseDto } from '../../users/dto/user-response.dto.js';
import { CodePointLength, NormalizedIdentifier } from '../../common/validation.js';

export class LoginDto {
  @ApiProperty({
    example: 'jane_doe',
    description: 'Username or email, NFKC-normalised like at registration',
  })
  @NormalizedIdentifier()
  @IsString()
  @CodePointLength(1, 254)
  username: string;

  @ApiProperty({ example: 'correct horse battery' })
  @IsString()
  @CodePointLength(1, 128)
  password: string;
}

export class LoginResponseDto {
  @ApiProperty({
    example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9…',
    description: 'HS256 JWT for Authorization: Bearer',
  })
  token: string;

  @ApiProperty({ type: UserResponseDto, description: 'Without phone and address' })
  user: UserResponseDto;
}
