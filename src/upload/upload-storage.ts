import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

/** An object being written: invisible at its key until `commit()`. */
export interface PendingObject {
  /** Receives the bytes; end it before `commit()`. */
  readonly stream: Writable;
  /** Makes the object readable at its key. */
  commit(): Promise<void>;
  /** Drops whatever was written; safe at any point, also after the stream failed. */
  discard(): Promise<void>;
}

export interface StoredObject {
  size: number;
  stream: Readable;
}

/**
 * Where uploads live, addressed by their stored path (`YYYY/MM/<name>.<ext>`): the local disk here, or an
 * S3-compatible bucket (s3-upload-storage.ts).
 */
export abstract class UploadStorage {
  abstract create(key: string): Promise<PendingObject>;
  abstract exists(key: string): Promise<boolean>;
  /** The object's bytes, or null when there is none at that key. */
  abstract read(key: string): Promise<StoredObject | null>;
  /** Removes the object; a key with no object is not an error. */
  abstract delete(key: string): Promise<void>;
}

const isNotFound = (error: unknown) =>
  ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

/**
 * Files under `root`. A new file is written to `root/.incoming/` and renamed into place on commit (the
 * same file system, so the rename is atomic); readers never see a partial file.
 */
export class LocalDiskStorage extends UploadStorage {
  private readonly root: string;
  private readonly incoming: string;

  constructor(root: string) {
    super();
    this.root = resolve(root);
    this.incoming = join(this.root, '.incoming');
  }

  /** Creates the directories and fails (naming UPLOAD_DIR) when they cannot be written. */
  async prepare(): Promise<void> {
    try {
      await mkdir(this.incoming, { recursive: true });
      await access(this.incoming, constants.W_OK);
    } catch (error) {
      throw new Error(`UPLOAD_DIR ${this.root} is not writable: ${(error as Error).message}`);
    }
  }

  async create(key: string): Promise<PendingObject> {
    const target = this.pathOf(key);
    const temporary = join(this.incoming, `${randomBytes(16).toString('hex')}.part`);
    await mkdir(this.incoming, { recursive: true });
    const handle = await open(temporary, 'wx');
    const stream = handle.createWriteStream();
    // Settles once the file is closed, with the write error if there was one.
    const closed = finished(stream).then(
      () => null,
      (error: unknown) => error,
    );
    return {
      stream,
      async commit() {
        const error = await closed;
        if (error) throw error;
        await mkdir(dirname(target), { recursive: true });
        await rename(temporary, target);
      },
      async discard() {
        stream.destroy();
        await closed;
        await rm(temporary, { force: true });
      },
    };
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async read(key: string): Promise<StoredObject | null> {
    const handle = await open(this.pathOf(key), 'r').catch((error: unknown) => {
      if (isNotFound(error)) return null;
      throw error;
    });
    if (handle === null) return null;
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      return null;
    }
    return { size: info.size, stream: handle.createReadStream() };
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /** Keys are checked by the caller; this only guarantees that none can leave the root. */
  private pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep) || path.startsWith(this.incoming + sep)) {
      throw new Error(`Storage key outside the upload directory: ${JSON.stringify(key)}`);
    }
    return path;
  }
}
