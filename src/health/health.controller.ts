import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { Public } from '../common/public.decorator.js';

export class HealthDto {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ enum: ['up'], example: 'up' }) database: 'up';
}

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Public()
  @Get()
  @ApiOperation({
    summary: 'Liveness and database reachability',
    description: 'An unreachable database is a 500 with details `Database is unreachable`.',
  })
  @ApiEnvelope(HealthDto, { description: 'The service is up and its database answers' })
  @ApiErrors(429)
  async check(): Promise<HealthDto> {
    try {
      await this.dataSource.query('SELECT 1');
    } catch {
      // Answered as 500 by the filter (the API's code set has no 503).
      throw new ServiceUnavailableException('Database is unreachable');
    }
    return { status: 'ok', database: 'up' };
  }
}
