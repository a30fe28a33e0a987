import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { Timestamped } from '../database/timestamped.js';

/** A staff note on an order: kept for good, shown with the order's timeline. */
@Entity('order_notes')
export class OrderNote extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'order_id', type: 'integer' })
  orderId: number;

  @Column({ name: 'author_id', type: 'integer' })
  authorId: number;

  @Column({ type: 'varchar', length: 2000 })
  text: string;
}
