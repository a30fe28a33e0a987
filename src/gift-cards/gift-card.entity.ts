import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { Timestamped } from '../database/timestamped.js';

const bigintNumber = { to: (v: number) => v, from: (v: string | number) => Number(v) };

/** A gift card (DESIGN.md §16): a balance in one currency, spent as a tender. Only its code's hash is kept. */
@Entity('gift_cards')
export class GiftCard extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'code_hash', type: 'varchar', length: 64, select: false })
  codeHash: string;

  @Column({ name: 'code_last4', type: 'varchar', length: 4 })
  codeLast4: string;

  /** Lower-case ISO 4217. */
  @Column({ name: 'currency_code', type: 'varchar', length: 3 })
  currencyCode: string;

  @Column({ name: 'initial_balance_minor', type: 'bigint', transformer: bigintNumber })
  initialBalanceMinor: number;

  @Column({ name: 'balance_minor', type: 'bigint', transformer: bigintNumber })
  balanceMinor: number;

  @Column({ name: 'expires_at', type: 'datetime', precision: 3, nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;
}
