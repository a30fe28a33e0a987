import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import { finished, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { fieldError } from '../common/validation.js';
import type { UploadResultDto } from './dto/upload-result.dto.js';
import { detectFileType, mimeOfExtension, SNIFF_BYTES, type FileType } from './file-type.js';
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

@Injectable()
export class UploadService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly storage: UploadStorage,
  ) {}

  /**
   * Streams the request's single `file` part to storage while checking the limits and the type, and
   * makes it visible only when the whole form was valid. Any failure, including the client going away,
   * removes what was written before the promise settles.
   */
  async receive(request: IncomingMessage): Promise<UploadResultDto> {
    const notMultipart = bad('multipart', 'Content-Type must be multipart/form-data with a boundary');
    // busboy would also parse a URL-encoded body.
    if (!/^multipart\/form-data\s*;/i.test(request.headers['content-type'] ?? '')) throw notMultipart;
    let form: busboy.Busboy;
    try {
      form = busboy({
        headers: request.headers,
        defParamCharset: 'utf8',
        preservePath: false,
        limits: {
          // One byte over the maximum marks a file as too large (busboy flags a file that reaches the limit).
          fileSize: this.config.upload.maxBytes + 1,
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
          fail(bad('maxBytes', `${FILE_PART} must not be larger than ${this.config.upload.maxBytes} bytes`)),
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
        received
          .then(async (file) => {
            try {
              await file.pending.commit();
            } catch (error) {
              await file.pending.discard();
              throw error;
            }
            resolve(file.result);
          })
          .catch(reject);
      });
      // Also reports a client that went away before this handler ran.
      finished(request, (error) => {
        if (error) fail(bad('multipart', 'the upload was interrupted before the end of the form'));
      });
      request.pipe(form);
    });
  }

  /** Whether `path` names a stored upload: the check for a product's `image`. */
  async isStoredFile(path: string): Promise<boolean> {
    return this.servableType(path) !== null && (await this.storage.exists(path));
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
