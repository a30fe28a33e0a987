/** Who did something to an order, as its timeline shows it. */
export interface TimelineActor {
  type: 'customer' | 'guest' | 'staff' | 'system' | 'payment_provider';
  /** The account (customer or staff); null for a guest, the system or a payment provider. */
  id: number | null;
}

/**
 * One thing that happened to an order. `type` is one of: placed, payment, refund, status_changed, fulfilment_created,
 * fulfilment_delivered, fulfilment_cancelled, return_requested, return_received, return_rejected, email_sent, note.
 * `data` holds what the entry is about (amounts in the order's currency as the API shows them).
 */
export interface OrderTimelineEntry {
  at: Date;
  type: string;
  actor: TimelineActor;
  data: Record<string, unknown>;
}

/**
 * A module that records something about orders contributes its part of their timeline, read from its own tables
 * (or the outbox): the timeline is assembled from what the service already records, never a second log.
 */
export interface OrderTimelineSource {
  entriesOf(orderId: number): Promise<OrderTimelineEntry[]>;
}
