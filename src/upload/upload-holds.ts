import type { Tx } from '../database/transaction-runner.js';

/** What other modules may ask of the upload module (bound to UploadService in UploadModule). */
export abstract class UploadHolds {
  /**
   * Whether `path` names a stored upload, checked inside the transaction of a product write that makes it
   * the product's image. Its row stays locked until that transaction ends, so a removal of the file (which
   * locks the row first) either finished before, and the file is gone, or waits and then sees the product.
   */
  abstract holdForProduct(tx: Tx, path: string): Promise<boolean>;
}
