import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiErrors } from '../common/openapi.js';
import { Public } from '../common/public.decorator.js';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Public()
  @Get()
  @ApiOperation({ summary: 'Liveness and database reachability' })
  @ApiOkResponse({
    description: 'The service is up and its database answers',
    schema: { example: { code: 200, message: 'OK', data: { status: 'ok', database: 'up' } } },
  })
  @ApiErrors(429)
  async check(): Promise<{ status: 'ok'; database: 'up' }> {
    try {
      await this.dataSource.query('SELECT 1');
    } catch {
      // Answered as 500 by the filter (the API's code set has no 503).
      throw new ServiceUnavailableException('Database is unreachable');
    }
    return { status: 'ok', database: 'up' };
  }
}
