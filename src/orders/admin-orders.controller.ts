import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { AdminOrderListQueryDto, AdminOrderResponseDto } from './dto/order.dto.js';
import { OrdersService } from './orders.service.js';

@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('admin/orders')
export class AdminOrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Get()
  @ApiOperation({
    summary: "List every user's orders with their owner (admin)",
    description:
      'Filters combine with AND. `created_from` is inclusive, `created_to` exclusive. `search` matches the order ' +
      "number, the owner's username or email. Default order: newest first (ties by id).",
  })
  @ApiEnvelope(AdminOrderResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 429)
  list(@Query() query: AdminOrderListQueryDto): Promise<Paginated<AdminOrderResponseDto>> {
    return this.orders.listAll(query);
  }
}
