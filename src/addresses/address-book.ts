import type { Tx } from '../database/transaction-runner.js';
import type { AddressResponseDto } from './dto/address.dto.js';

/** What other modules may ask of the address book (bound to AddressesService in AddressesModule). */
export abstract class AddressBook {
  /** The user's address `id` read through `tx`, or null when it does not exist or is another user's. */
  abstract findOwn(tx: Tx, userId: number, id: number): Promise<AddressResponseDto | null>;
}
