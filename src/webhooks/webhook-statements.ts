// The fixed SQL of webhook deliveries (both databases). An attempt's writes are conditional on `attempts`, so a
// job that lost the race for an attempt changes nothing.

export const ACTIVE_WEBHOOKS = 'SELECT id, events FROM webhooks WHERE active = ? ORDER BY id';

export const INSERT_DELIVERY =
  'INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload, next_attempt_at) VALUES (?, ?, ?, ?, ?)';

export const DELIVERY_STATE =
  'SELECT id, attempts, status FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ?';

/** Attempt n starts: attempts n-1 → n, and the attempt holds the row until the lease (next_attempt_at). */
export const CLAIM_ATTEMPT =
  "UPDATE webhook_deliveries SET attempts = ?, next_attempt_at = ?, updated_at = ? WHERE id = ? AND attempts = ? AND status = 'pending'";

export const DELIVERY_TO_SEND =
  'SELECT d.event_id, d.payload, w.url, w.secret, w.active FROM webhook_deliveries d ' +
  'JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = ?';

export const RECORD_SUCCESS =
  "UPDATE webhook_deliveries SET status = 'succeeded', last_status_code = ?, last_error = NULL, next_attempt_at = NULL, updated_at = ? WHERE id = ? AND attempts = ?";

export const RECORD_FAILURE =
  "UPDATE webhook_deliveries SET status = 'failed', last_status_code = ?, last_error = ?, next_attempt_at = NULL, updated_at = ? WHERE id = ? AND attempts = ?";

export const RECORD_RETRY =
  'UPDATE webhook_deliveries SET last_status_code = ?, last_error = ?, next_attempt_at = ?, updated_at = ? WHERE id = ? AND attempts = ?';

/** The admin's retry: pending again, due now. */
export const REOPEN_DELIVERY =
  "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, updated_at = ? WHERE id = ?";

export const OVERDUE_DELIVERIES =
  "SELECT id, attempts, next_attempt_at FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at < ? ORDER BY id LIMIT 500";

/** Settled deliveries created before a time, a batch at a time (removed by id: MySQL has no LIMIT in IN). */
export const EXPIRED_DELIVERIES =
  "SELECT id FROM webhook_deliveries WHERE created_at < ? AND status <> 'pending' LIMIT 1000";
