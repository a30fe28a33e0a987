import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthUser, CurrentUser, Roles } from '../auth/auth-user.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { OrderNotes } from './order-notes.js';
import { CreateOrderNoteDto, OrderNoteResponseDto, OrderTimelineEntryDto } from './order-timeline.dto.js';
import { OrderTimeline } from './order-timeline.service.js';

@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('admin/orders/:id')
export class OrderTimelineController {
  constructor(
    private readonly notes: OrderNotes,
    private readonly timeline: OrderTimeline,
  ) {}

  @Post('notes')
  @ApiOperation({
    summary: 'Add a staff note to an order (admin)',
    description:
      '`text` is trimmed, then 1-2000 characters. Notes are kept for good and show in the timeline.',
  })
  @ApiEnvelope(OrderNoteResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 404, 429, {
    400: { field: 'text', rule: 'minLength', message: 'text must be longer than or equal to 1 characters' },
    404: 'Order 41 not found',
  })
  addNote(
    @IdParam() id: number,
    @Body() dto: CreateOrderNoteDto,
    @CurrentUser() admin: AuthUser,
  ): Promise<OrderNoteResponseDto> {
    return this.notes.add(id, dto.text, admin);
  }

  @Get('notes')
  @ApiOperation({ summary: "The order's staff notes, oldest first (admin)" })
  @ApiEnvelope(OrderNoteResponseDto, { array: true })
  @ApiErrors(400, 401, 403, 404, 429, { 404: 'Order 41 not found' })
  listNotes(@IdParam() id: number, @CurrentUser() admin: AuthUser): Promise<OrderNoteResponseDto[]> {
    return this.notes.list(id, admin);
  }

  @Get('timeline')
  @ApiOperation({
    summary: "The order's timeline, oldest first (admin)",
    description:
      'What the service recorded about the order, each entry with its time and actor: placed, payments, refunds, ' +
      'notes (kept for good), and from the outbox status changes and e-mails sent (kept as long as ' +
      'OUTBOX_RETENTION keeps dispatched events). Entries at the same instant keep a stable order.',
  })
  @ApiEnvelope(OrderTimelineEntryDto, { array: true })
  @ApiErrors(400, 401, 403, 404, 429, { 404: 'Order 41 not found' })
  timelineOf(@IdParam() id: number, @CurrentUser() admin: AuthUser): Promise<OrderTimelineEntryDto[]> {
    return this.timeline.of(id, admin);
  }
}
