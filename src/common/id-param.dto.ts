import { ApiProperty } from '@nestjs/swagger';
import { ToInteger } from './query-transforms.js';
import { IsInt, Max, Min } from 'class-validator';

/** `:id` path parameter: a positive 32-bit integer, else 400 naming `id`. */
export class IdParamDto {
  @ApiProperty({ type: 'integer', example: 1, minimum: 1 })
  @ToInteger()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  id: number;
}
