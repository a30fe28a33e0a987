import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { Timestamped } from '../database/timestamped.js';

/** A named set of customers that price lists and promotions can be limited to (DESIGN.md §16). */
@Entity('customer_groups')
export class CustomerGroup extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;
}

@Entity('customer_group_members')
export class CustomerGroupMember {
  @PrimaryColumn({ name: 'customer_group_id', type: 'integer' })
  customerGroupId: number;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;
}
