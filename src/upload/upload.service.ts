import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import { finished, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EntityManager, Repository } from 'typeorm';
import { assertOwnerOrAdmin, type AuthUser } from '../auth/auth-user.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { fieldError } from '../common/validation.js';
import { forUpdate } from '../database/row-locks.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { lockAccount } from '../users/user-accounts.js';
import type { UploadResultDto } from './dto/upload-result.dto.js';
import { detectFileType, mimeOfExtension, SNIFF_BYTES, type FileType } from './file-type.js';
import type { UploadHolds } from './upload-holds.js';
import { Upload } from './upload.entity.js';
import { orphanCutoff, QUOTA_WINDOW_MS, uploadLimit } from './upload-rules.js';
import { isStoredPathFormat, newStoredPath, sanitiseOriginalName } from './upload-names.js';
import { PendingObject, UploadStorage } from './upload-storage.js';

/** The one form part the upload accepts. */
export const FILE_PART = 'file';

const ONLY_PART = `send exactly one multipart part, named ${FILE_PART}, holding the file`;

/** A file written in full to storage but not yet visible there. */
interface ReceivedFile {
  pending: PendingObject;
  result: UploadResultDto;
}

export interface StoredFile {
  stream: Readable;
  size: number;
  contentType: string;
}

/** A refused upload: a field error on `file`, `rule` one of multipart, required, empty, maxBytes, fileType. */
const bad = (rule: string, details: string) => fieldError(FILE_PART, rule, details);

/** Orphaned uploads removed per run of the job at most; the next run takes the rest. */
export const ORPHAN_BATCH = 500;

/**
 * Where a live product shows the file at :path: its `image`, one of its `images`, a live variant's `image`
 * (soft-deleted products and variants do not count).
 */
const SHOWING = [
  'FROM products p WHERE p.image = :path AND p.deleted_at IS NULL',
  'FROM product_images i INNER JOIN products p ON p.id = i.product_id WHERE i.path = :path AND p.deleted_at IS NULL',
  'FROM product_variants v INNER JOIN products p ON p.id = v.product_id ' +
    'WHERE v.image = :path AND v.deleted_at IS NULL AND p.deleted_at IS NULL',
];

/** The products that show the file. */
const PRODUCTS_SHOWING = SHOWING.map((from) => `SELECT p.id ${from}`).join(' UNION ');

/** True while no live product shows the file. */
const NOT_A_PRODUCT_IMAGE = SHOWING.map((from) => `NOT EXISTS (SELECT 1 ${from})`).join(' AND ');

@Injectable()
export class UploadService implements UploadHolds {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly storage: UploadStorage,
    @InjectRepository(Upload) private readonly uploads: Repository<Upload>,
    private readonly transactions: TransactionRunner,
  ) {}

  /**
   * Streams the request's single `file` part to storage while checking the limits and the type, and
   * makes it visible only when the whole form was valid. Any failure, including the client going away,
   * removes what was written before the promise settles. The file counts against the owner's
   * UPLOAD_QUOTA_BYTES: one that would pass it is cut off as soon as it does, and nothing is kept.
   */
  async receive(request: IncomingMessage, owner: AuthUser): Promise<UploadResultDto> {
    const notMultipart = bad('multipart', 'Content-Type must be multipart/form-data with a boundary');
    // busboy would also parse a URL-encoded body.
    if (!/^multipart\/form-data\s*;/i.test(request.headers['content-type'] ?? '')) throw notMultipart;
    const used = await this.usedQuota(this.uploads.manager, owner.id);
    const { maxBytes, quotaBytes } = this.config.upload;
    const limit = uploadLimit(maxBytes, quotaBytes, used);
    if (limit === null) {
      request.resume(); // drop the body, so that the answer reaches the client
      throw this.quotaExceeded(used);
    }
    let form: busboy.Busboy;
    try {
      form = busboy({
        headers: request.headers,
        defParamCharset: 'utf8',
        preservePath: false,
        limits: {
          // One byte over the maximum marks a file as too large (busboy flags a file that reaches the limit).
          fileSize: limit.bytes + 1,
          files: 1,
          // No text fields at all, so no field value is ever buffered.
          fields: 0,
          fieldSize: 1024,
          // A second part of any kind, also one busboy would skip silently, ends the upload.
          parts: 2,
        },
      });
    } catch {
      throw notMultipart; // no boundary parameter
    }

    return new Promise<UploadResultDto>((resolve, reject) => {
      let fileStream: Readable | undefined;
      let received: Promise<ReceivedFile> | undefined;
      let settled = false;

      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        request.unpipe(form);
        // Read and drop the rest of the body so that the answer reaches the client.
        request.resume();
        fileStream?.destroy();
        // Answer only once nothing of the file is left in storage.
        void (received ?? Promise.resolve(null))
          .then(
            (file) => file?.pending.discard(),
            () => undefined, // storeFile removed its own partial file
          )
          .finally(() => reject(error));
      };

      form.on('file', (name, stream, info) => {
        if (settled) {
          stream.resume();
          return;
        }
        fileStream = stream;
        if (name !== FILE_PART) {
          const part = name ? `"${name}"` : 'without a name';
          fail(bad('multipart', `unexpected part ${part}: ${ONLY_PART}`));
          return;
        }
        // Emitted as the limit is crossed, so the answer does not wait for the rest of the upload.
        stream.once('limit', () =>
          fail(
            limit.cutBy === 'quota'
              ? this.quotaExceeded(used)
              : bad('maxBytes', `${FILE_PART} must not be larger than ${maxBytes} bytes`),
          ),
        );
        received = this.storeFile(stream, info.filename);
        received.catch(fail);
      });
      form.on('filesLimit', () => fail(bad('multipart', `only one file may be sent: ${ONLY_PART}`)));
      form.on('fieldsLimit', () => fail(bad('multipart', `text fields are not accepted: ${ONLY_PART}`)));
      form.on('partsLimit', () => fail(bad('multipart', `the form holds more than one part: ${ONLY_PART}`)));
      form.on('error', (error) =>
        fail(bad('multipart', `malformed multipart body: ${(error as Error).message}`)),
      );
      form.on('close', () => {
        if (settled) return;
        if (received === undefined) {
          fail(bad('required', `file is required: ${ONLY_PART}`));
          return;
        }
        // The whole form was read and valid: from here only storage can fail.
        settled = true;
        received.then((file) => this.record(file, owner.id)).then(resolve, reject);
      });
      // Also reports a client that went away before this handler ran.
      finished(request, (error) => {
        if (error) fail(bad('multipart', 'the upload was interrupted before the end of the form'));
      });
      request.pipe(form);
    });
  }

  async holdForProduct(tx: Tx, path: string): Promise<boolean> {
    if (this.servableType(path) === null) return false;
    await this.lockRow(tx, path);
    return this.storage.exists(path);
  }

  /**
   * Deletes an upload for its owner or an admin: 404 without a row, 403 for anyone else, 400 while a product
   * shows it. The object goes before the row's deletion commits, so no product can take a file half-deleted.
   */
  async remove(path: string, actor: AuthUser): Promise<void> {
    if (this.servableType(path) === null) throw new NotFoundException('No uploaded file at this path');
    await this.transactions.run('delete upload', async (manager) => {
      const upload = await this.lockRow(manager, path);
      if (upload === null) throw new NotFoundException('No uploaded file at this path');
      assertOwnerOrAdmin(actor, upload.ownerId, {
        hide: false,
        forbidden: 'Only the owner of an upload or an admin may delete it',
      });
      if (!(await this.deleteRowIfUnused(manager, path))) {
        const [product]: Array<{ id: number }> = await manager.query(
          `SELECT MIN(id) AS id FROM (${PRODUCTS_SHOWING.replaceAll(':path', '?')}) showing`,
          SHOWING.map(() => path),
        );
        throw fieldError(
          'filename',
          'inUse',
          `the file is an image of product ${product?.id}; remove it from that product's images first`,
        );
      }
      await this.storage.delete(path);
    });
  }

  /** Uploads older than UPLOAD_ORPHAN_TTL that no product uses, oldest first (at most ORPHAN_BATCH). */
  async findOrphans(now = new Date()): Promise<string[]> {
    const rows = await this.uploads
      .createQueryBuilder('upload')
      .select('upload.path', 'path')
      .where('upload.created_at <= :cutoff', {
        cutoff: orphanCutoff(now, this.config.upload.orphanTtlSeconds),
      })
      .andWhere(NOT_A_PRODUCT_IMAGE.replaceAll(':path', 'upload.path'))
      .orderBy('upload.created_at')
      .limit(ORPHAN_BATCH)
      .getRawMany<{ path: string }>();
    return rows.map((row) => row.path);
  }

  /**
   * Removes one upload found by `findOrphans` if it is still an orphan: its row is locked and deleted on that
   * condition, then the object, in one transaction. Safe on several instances at once; false when it was
   * kept (a product took it meanwhile) or is already gone.
   */
  async removeIfOrphan(path: string, now = new Date()): Promise<boolean> {
    return this.transactions.run('remove orphan upload', async (manager) => {
      await this.lockRow(manager, path);
      if (
        !(await this.deleteRowIfUnused(manager, path, orphanCutoff(now, this.config.upload.orphanTtlSeconds)))
      )
        return false;
      await this.storage.delete(path);
      return true;
    });
  }

  private lockRow(manager: EntityManager, path: string): Promise<Upload | null> {
    return forUpdate(
      manager.getRepository(Upload).createQueryBuilder('upload').where('upload.path = :path', { path }),
    ).getOne();
  }

  /**
   * Deletes the row only while no product uses the file. Called with the row locked (`lockRow`), which every
   * product write that shows the file locks first: the subquery sees each such write that committed meanwhile.
   */
  private async deleteRowIfUnused(
    manager: EntityManager,
    path: string,
    createdBefore?: Date,
  ): Promise<boolean> {
    const query = manager
      .createQueryBuilder()
      .delete()
      .from(Upload)
      .where('path = :path', { path })
      .andWhere(NOT_A_PRODUCT_IMAGE);
    if (createdBefore !== undefined) query.andWhere('created_at <= :createdBefore', { createdBefore });
    return (await query.execute()).affected === 1;
  }

  /** Bytes the owner uploaded in the last 24 hours and still has. */
  private async usedQuota(manager: EntityManager, ownerId: number): Promise<number> {
    const row = await manager
      .getRepository(Upload)
      .createQueryBuilder('upload')
      .select('COALESCE(SUM(upload.size), 0)', 'used')
      .where('upload.owner_id = :ownerId AND upload.created_at > :since', {
        ownerId,
        since: new Date(Date.now() - QUOTA_WINDOW_MS),
      })
      .getRawOne<{ used: number | string }>();
    return Number(row?.used ?? 0);
  }

  private quotaExceeded(used: number): Error {
    const { quotaBytes } = this.config.upload;
    return bad(
      'quota',
      `${FILE_PART} would pass the upload quota of ${quotaBytes} bytes per 24 hours (UPLOAD_QUOTA_BYTES): ` +
        `${used} bytes used, ${Math.max(quotaBytes - used, 0)} left`,
    );
  }

  /**
   * Makes a received file visible and writes its row in one transaction, after checking the quota again with
   * the owner's row locked (concurrent uploads of one user are counted one after the other). On any failure
   * the object is removed again: there is never an object without its row once this settles.
   */
  private async record(file: ReceivedFile, ownerId: number): Promise<UploadResultDto> {
    const { pending, result } = file;
    let committed = false;
    try {
      await this.transactions.run('record upload', async (manager) => {
        await lockAccount(manager, ownerId);
        const used = await this.usedQuota(manager, ownerId);
        if (used + result.size > this.config.upload.quotaBytes) throw this.quotaExceeded(used);
        // Once only: a retried transaction (after a deadlock) finds the object already in place.
        if (!committed) {
          await pending.commit();
          committed = true;
        }
        await manager.insert(Upload, {
          path: result.filename,
          ownerId,
          size: result.size,
          contentType: result.content_type,
          createdAt: new Date(),
        });
      });
    } catch (error) {
      await (committed ? this.storage.delete(result.filename) : pending.discard());
      throw error;
    }
    return result;
  }

  /** A stored upload for serving; 404 for any path that is not one. */
  async openStored(path: string): Promise<StoredFile> {
    const contentType = this.servableType(path);
    const object = contentType === null ? null : await this.storage.read(path);
    if (object === null || contentType === null) throw new NotFoundException('No uploaded file at this path');
    return { ...object, contentType };
  }

  private servableType(path: string): string | null {
    if (!isStoredPathFormat(path)) return null;
    return mimeOfExtension(path.slice(path.lastIndexOf('.') + 1));
  }

  /**
   * Decides the type from the first bytes, then writes the file (head and rest) to a pending object,
   * counting its size. Throws, with nothing left in storage, when it is empty or not allowed, or when the
   * stream is destroyed (the size limit, another bad part, the client going away).
   */
  private async storeFile(stream: Readable, clientName: string | undefined): Promise<ReceivedFile> {
    const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const head: Buffer[] = [];
    let headLength = 0;
    let ended = false;
    while (headLength < SNIFF_BYTES) {
      const next = await chunks.next();
      if (next.done) {
        ended = true;
        break;
      }
      head.push(next.value);
      headLength += next.value.length;
    }
    if (headLength === 0) throw bad('empty', `${FILE_PART} must not be empty`);
    const type = this.allowedType(detectFileType(Buffer.concat(head)));

    const path = newStoredPath(type.ext);
    const pending = await this.storage.create(path);
    let size = 0;
    async function* counted() {
      for (const chunk of head) {
        size += chunk.length;
        yield chunk;
      }
      if (ended) return;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
        size += next.value.length;
        yield next.value;
      }
    }
    try {
      await pipeline(counted, pending.stream);
    } catch (error) {
      await pending.discard();
      throw error;
    }
    return {
      pending,
      result: {
        filename: path,
        original_name: sanitiseOriginalName(clientName),
        size,
        content_type: type.mime,
      },
    };
  }

  private allowedType(type: FileType | null): FileType {
    const allowed = this.config.upload.allowedTypes;
    if (type === null) {
      throw bad(
        'fileType',
        `${FILE_PART} content must be one of ${allowed.join(', ')} (detected from its bytes; ` +
          'the declared type is not trusted)',
      );
    }
    if (!allowed.includes(type.mime)) {
      throw bad(
        'fileType',
        `${FILE_PART} content is ${type.mime}, which is not allowed (allowed: ${allowed.join(', ')})`,
      );
    }
    return type;
  }
}
