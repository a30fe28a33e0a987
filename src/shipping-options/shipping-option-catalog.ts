import type { Tx } from '../database/transaction-runner.js';
import type { ShippingOptionResponseDto } from './dto/shipping-option.dto.js';

/** What other modules may ask of the shipping options (bound to ShippingOptionsService in ShippingOptionsModule). */
export abstract class ShippingOptionCatalog {
  /** The active options that ship to `country` (those with no countries ship everywhere), id ascending. */
  abstract applicableTo(country: string): Promise<ShippingOptionResponseDto[]>;

  /** Option `id` read through `tx` when it is active and ships to `country`; otherwise null. */
  abstract findApplicable(tx: Tx, id: number, country: string): Promise<ShippingOptionResponseDto | null>;
}
