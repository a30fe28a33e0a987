import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { AuthUser } from '../auth/auth-user.js';
import { dateFromRow } from '../database/timestamps.js';
import { OrderHistory } from '../orders/order-history.js';
import type { OrderTimelineEntry, OrderTimelineSource } from '../orders/order-timeline.js';
import { OrderNote } from './order-note.entity.js';
import type { OrderNoteResponseDto } from './order-timeline.dto.js';

/** An order's notes with their author's username (deleted accounts included), oldest first. */
const NOTES_OF_ORDER =
  'SELECT n.id, n.order_id, n.author_id, n.text, n.created_at, u.username FROM order_notes n ' +
  'LEFT JOIN users u ON u.id = n.author_id WHERE n.order_id = ? ORDER BY n.id';

interface NoteRow {
  id: number | string;
  order_id: number | string;
  author_id: number | string;
  text: string;
  created_at: Date | string;
  username: string | null;
}

/** Staff notes on orders; they are also a source of the order's timeline (`note` entries). */
@Injectable()
export class OrderNotes implements OrderTimelineSource {
  constructor(
    @InjectRepository(OrderNote) private readonly notes: Repository<OrderNote>,
    private readonly orders: OrderHistory,
  ) {}

  async add(orderId: number, text: string, admin: AuthUser): Promise<OrderNoteResponseDto> {
    await this.orders.findPayable(orderId, { actor: admin });
    const now = new Date();
    const note = await this.notes.save(
      this.notes.create({ orderId, authorId: admin.id, text, createdAt: now, updatedAt: now }),
    );
    return {
      id: note.id,
      order_id: orderId,
      text: note.text,
      author: { id: admin.id, username: admin.username },
      created_at: now.toISOString(),
    };
  }

  async list(orderId: number, admin: AuthUser): Promise<OrderNoteResponseDto[]> {
    await this.orders.findPayable(orderId, { actor: admin });
    return (await this.rowsOf(orderId)).map(toNoteResponse);
  }

  async entriesOf(orderId: number): Promise<OrderTimelineEntry[]> {
    return (await this.rowsOf(orderId)).map((row) => {
      const note = toNoteResponse(row);
      return {
        at: new Date(note.created_at),
        type: 'note',
        actor: { type: 'staff', id: note.author.id },
        data: { note_id: note.id, text: note.text, author: note.author },
      };
    });
  }

  private rowsOf(orderId: number): Promise<NoteRow[]> {
    return this.notes.query(NOTES_OF_ORDER, [orderId]);
  }
}

function toNoteResponse(row: NoteRow): OrderNoteResponseDto {
  return {
    id: Number(row.id),
    order_id: Number(row.order_id),
    text: row.text,
    author: { id: Number(row.author_id), username: row.username },
    created_at: dateFromRow(row.created_at).toISOString(),
  };
}
