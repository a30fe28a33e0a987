import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Paginated } from '../common/envelope.js';
import { fieldError } from '../common/validation.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { lockAccount } from '../users/user-accounts.js';
import { Address } from './address.entity.js';
import type { AddressBook } from './address-book.js';
import {
  AddressResponseDto,
  CreateAddressDto,
  toAddressResponse,
  UpdateAddressDto,
} from './dto/address.dto.js';

/** Addresses one account may keep. */
export const ADDRESSES_MAX = 20;

/**
 * The address book. Every write that counts the user's addresses or moves the default holds the user's row lock
 * first, so that concurrent writes cannot pass the limit or leave two defaults.
 */
@Injectable()
export class AddressesService implements AddressBook {
  constructor(
    @InjectRepository(Address) private readonly addresses: Repository<Address>,
    private readonly transactions: TransactionRunner,
  ) {}

  async list(userId: number): Promise<Paginated<AddressResponseDto>> {
    const rows = await this.addresses.find({ where: { userId }, order: { id: 'ASC' } });
    return new Paginated(rows.map(toAddressResponse), rows.length, 1, ADDRESSES_MAX);
  }

  async get(userId: number, id: number): Promise<AddressResponseDto> {
    const address = await this.addresses.findOneBy({ id, userId });
    if (address === null) throw notFound(id);
    return toAddressResponse(address);
  }

  async findOwn(tx: Tx, userId: number, id: number): Promise<AddressResponseDto | null> {
    const address = await tx.findOneBy(Address, { id, userId });
    return address === null ? null : toAddressResponse(address);
  }

  async create(userId: number, dto: CreateAddressDto): Promise<AddressResponseDto> {
    return this.transactions.run('create address', async (tx) => {
      await lockAccount(tx, userId);
      const count = await tx.countBy(Address, { userId });
      if (count >= ADDRESSES_MAX) {
        throw fieldError('addresses', 'maxCount', `An account keeps at most ${ADDRESSES_MAX} addresses`);
      }
      const now = new Date();
      const isDefault = count === 0 || dto.is_default === true;
      if (isDefault) await clearDefault(tx, userId, now);
      const address = tx.create(Address, {
        userId,
        name: dto.name,
        line1: dto.line1,
        line2: dto.line2 ?? '',
        city: dto.city,
        region: dto.region ?? '',
        postalCode: dto.postal_code ?? '',
        country: dto.country,
        phone: dto.phone ?? '',
        isDefault,
        createdAt: now,
        updatedAt: now,
      });
      await tx.insert(Address, address);
      return toAddressResponse(address);
    });
  }

  async update(userId: number, id: number, dto: UpdateAddressDto): Promise<AddressResponseDto> {
    return this.transactions.run('update address', async (tx) => {
      await lockAccount(tx, userId);
      const address = await tx.findOneBy(Address, { id, userId });
      if (address === null) throw notFound(id);
      const now = new Date();
      if (dto.is_default === true && !address.isDefault) await clearDefault(tx, userId, now);
      const changes: Partial<Address> = {
        name: dto.name,
        line1: dto.line1,
        line2: dto.line2,
        city: dto.city,
        region: dto.region,
        postalCode: dto.postal_code,
        country: dto.country,
        phone: dto.phone,
        isDefault: dto.is_default,
      };
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined) delete changes[key as keyof Address];
      }
      await tx.update(Address, { id }, { ...changes, updatedAt: now });
      return toAddressResponse({ ...address, ...changes, updatedAt: now });
    });
  }

  /** Deleting the default leaves the account without one until the user chooses another. */
  async remove(userId: number, id: number): Promise<void> {
    const result = await this.transactions.run('delete address', (tx) => tx.delete(Address, { id, userId }));
    if (result.affected === 0) throw notFound(id);
  }
}

async function clearDefault(tx: Tx, userId: number, now: Date): Promise<void> {
  await tx.update(Address, { userId, isDefault: true }, { isDefault: false, updatedAt: now });
}

const notFound = (id: number) => new NotFoundException(`Address ${id} not found`);
