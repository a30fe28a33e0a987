import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PassThrough, Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { UploadStorage, type PendingObject, type StoredObject } from './upload-storage.js';

export interface S3Settings {
  bucket: string;
  endpoint: string | null;
  region: string;
  forcePathStyle: boolean;
}

/** The smallest part S3 accepts: the most one upload in progress holds in memory (one part at a time). */
const PART_BYTES = 5 * 1024 * 1024;

const isNotFound = (error: unknown) =>
  error instanceof S3ServiceException &&
  (error.$metadata.httpStatusCode === 404 || error.name === 'NoSuchKey' || error.name === 'NotFound');

/**
 * Objects in an S3-compatible bucket, under their stored path as key. A new object goes through the SDK's
 * `Upload` (a single PUT, or a multipart upload for more than one part) whose body is ended only by
 * `commit()`: before it no object exists at the key; `discard()` fails the body, which aborts a multipart
 * upload. Parts of an upload cut short by a crash stay invisible until the bucket's lifecycle rule for
 * incomplete multipart uploads removes them.
 */
export class S3UploadStorage extends UploadStorage {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(private readonly settings: S3Settings) {
    super();
    this.bucket = settings.bucket;
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint ?? undefined,
      forcePathStyle: settings.forcePathStyle,
    });
  }

  /** Fails (naming S3_BUCKET) when the bucket cannot be reached with the credentials found. */
  async prepare(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      const where = this.settings.endpoint ?? `AWS region ${this.settings.region}`;
      const status = (error as S3ServiceException).$metadata?.httpStatusCode;
      const reason = `${(error as Error).name}${status ? ` (HTTP ${status})` : ''}: ${(error as Error).message}`;
      throw new Error(`S3_BUCKET ${this.bucket} at ${where} is not reachable: ${reason}`);
    }
  }

  async create(key: string): Promise<PendingObject> {
    const body = new PassThrough();
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body },
      partSize: PART_BYTES,
      queueSize: 1,
    });
    // Settles once the object exists, or once the upload is given up (a multipart upload aborted).
    const uploaded = upload.done().then(
      () => null,
      (error: unknown) => error as Error,
    );
    // Forwards the bytes but not their end, which would complete the upload.
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        if (body.write(chunk)) callback();
        else body.once('drain', () => callback());
      },
    });
    // Settles once all bytes were written, with the error if the stream failed or was destroyed first.
    const written = finished(stream).then(
      () => null,
      (error: unknown) => error as Error,
    );
    void written.then((error) => {
      if (error) body.destroy(error);
    });
    void uploaded.then((error) => {
      if (error) stream.destroy(error);
    });
    return {
      stream,
      async commit() {
        const failed = await written;
        if (failed) throw failed;
        body.end();
        const error = await uploaded;
        if (error) throw error;
      },
      async discard() {
        stream.destroy();
        body.destroy(new Error('upload discarded'));
        await uploaded;
      },
    };
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async read(key: string): Promise<StoredObject | null> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: object.ContentLength ?? 0, stream: object.Body as Readable };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /** Called by Nest on shutdown: closes the kept-alive connections. */
  onModuleDestroy(): void {
    this.client.destroy();
  }

  async delete(key: string): Promise<void> {
    // S3 answers a delete of a missing key with success too.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}
