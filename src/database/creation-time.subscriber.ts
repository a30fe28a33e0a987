import { EventSubscriber, type EntitySubscriberInterface, type InsertEvent } from 'typeorm';

/**
 * Sets `created_at` and `updated_at` of every inserted row that does not carry them. Left to TypeORM, an
 * insert on SQLite writes `datetime('now')`, which has whole seconds; with this, every timestamp keeps
 * milliseconds on both databases, for any entity with @CreateDateColumn / @UpdateDateColumn. TypeORM registers
 * only classes marked @EventSubscriber() from the data source's `subscribers`.
 */
@EventSubscriber()
export class CreationTimeSubscriber implements EntitySubscriberInterface {
  beforeInsert(event: InsertEvent<object>): void {
    const { metadata, entity } = event;
    if (entity === undefined || entity === null) return;
    const now = new Date();
    for (const column of [metadata.createDateColumn, metadata.updateDateColumn]) {
      if (column !== undefined && column.getEntityValue(entity) === undefined)
        column.setEntityValue(entity, now);
    }
  }
}
