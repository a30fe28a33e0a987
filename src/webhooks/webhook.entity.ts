import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { Timestamped } from '../database/timestamped.js';

/** An endpoint that receives the events it subscribes to, signed with its secret. */
@Entity('webhooks')
export class Webhook extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  /** Event types, or ['*'] for every event. */
  @Column({ type: 'simple-json' })
  events: string[];

  @Column({ type: 'varchar', length: 500, default: '' })
  description: string;

  /** `whsec_` + base64 of the key: stored as is, since signing needs it; never in a response or a log. */
  @Column({ type: 'varchar', length: 100, select: false })
  secret: string;

  @Column({ type: 'boolean', default: true })
  active: boolean;
}
