import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { eventually } from '../../test/support/eventually.js';
import { startS3Server, type S3TestServer } from '../../test/support/s3-server.js';
import { S3UploadStorage } from './s3-upload-storage.js';

const MiB = 1024 * 1024;
const keyOf = (ext = 'png') => `2026/11/${randomBytes(16).toString('hex')}.${ext}`;

const write = (stream: NodeJS.WritableStream, data: Buffer) =>
  new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.end(data, () => resolve());
  });

/** Runs against s3rver, a real S3-compatible server on an ephemeral port (test/support/s3-server.ts). */
describe('S3UploadStorage', () => {
  let s3: S3TestServer;
  let storage: S3UploadStorage;

  beforeAll(async () => {
    s3 = await startS3Server();
    storage = new S3UploadStorage({
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
    });
    await storage.prepare();
  });

  /**
   * The object's bytes in the local S3 server's files. The server may answer the completing request before its
   * file holds every byte, so its length is awaited (briefly) first; the bytes are then compared by the test.
   */
  const storedObject = async (key: string, length: number) => {
    await eventually(() => s3.readObject(key).length >= length, { ms: 2000 });
    return s3.readObject(key);
  };

  afterAll(async () => {
    storage.onModuleDestroy();
    await s3.close();
  });

  it('creates no object at the key until commit, then serves exactly its bytes', async () => {
    const key = keyOf();
    const data = Buffer.from([0, 1, 2, 13, 10, 255, 254]);
    const pending = await storage.create(key);
    await write(pending.stream, data);
    expect(await storage.exists(key)).toBe(false);
    expect(await storage.read(key)).toBeNull();
    expect(s3.objectKeys()).not.toContain(key);

    await pending.commit();
    expect(s3.objectKeys()).toContain(key);
    expect(await storedObject(key, data.length)).toEqual(data);
    expect(await storage.exists(key)).toBe(true);
    const stored = await storage.read(key);
    expect(stored?.size).toBe(data.length);
    expect(await buffer(stored!.stream)).toEqual(data);
  });

  it('streams a file larger than one part as a multipart upload completed by commit', async () => {
    const key = keyOf('pdf');
    const data = randomBytes(11 * MiB);
    const before = s3.requests.length;
    const pending = await storage.create(key);
    await write(pending.stream, data);
    expect(s3.objectKeys()).not.toContain(key);

    await pending.commit();
    const sent = s3.requests.slice(before);
    expect(sent.filter((line) => line.startsWith(`POST /${s3.bucket}/${key}?uploads`))).toHaveLength(1);
    expect(sent.filter((line) => /^PUT .*partNumber=/.test(line))).toHaveLength(3);
    expect((await storedObject(key, data.length)).equals(data)).toBe(true);
    expect((await storage.read(key))?.size).toBe(data.length);
  });

  it('leaves no object when a pending one is discarded, written or not', async () => {
    const keys = [keyOf(), keyOf(), keyOf()];
    const before = s3.objectKeys();
    const written = await storage.create(keys[0]);
    await write(written.stream, Buffer.from('partial'));
    await written.discard();
    const untouched = await storage.create(keys[1]);
    await untouched.discard();
    const midway = await storage.create(keys[2]);
    midway.stream.write(Buffer.from('half'));
    await midway.discard();
    expect(s3.objectKeys()).toEqual(before);
    for (const key of keys) expect(await storage.exists(key)).toBe(false);
  });

  it('aborts the multipart upload when the stream fails after parts were sent, leaving no object', async () => {
    const key = keyOf();
    const before = s3.requests.length;
    const pending = await storage.create(key);
    // Two full parts and the start of a third, then the writer fails (a client gone, a size limit).
    await new Promise<void>((resolve) => pending.stream.write(randomBytes(11 * MiB), () => resolve()));
    const partsSent = () => s3.requests.slice(before).filter((line) => /^PUT .*partNumber=/.test(line));
    for (let i = 0; i < 200 && partsSent().length < 2; i += 1) await new Promise((r) => setTimeout(r, 25));
    expect(partsSent()).toHaveLength(2);
    pending.stream.destroy(new Error('client went away'));
    await pending.discard();

    const sent = s3.requests.slice(before);
    const uploadId = /uploadId=([^&]+)/.exec(partsSent()[0])?.[1];
    expect(sent).toContainEqual(
      expect.stringMatching(new RegExp(`^DELETE /${s3.bucket}/${key}\\?uploadId=${uploadId}`)),
    );
    expect(sent.some((line) => line.startsWith(`POST /${s3.bucket}/${key}?uploadId=`))).toBe(false);
    expect(s3.objectKeys()).not.toContain(key);
    expect(await storage.exists(key)).toBe(false);
  });

  it('refuses to commit an object whose stream failed', async () => {
    const key = keyOf();
    const pending = await storage.create(key);
    pending.stream.destroy(new Error('disk full'));
    await expect(pending.commit()).rejects.toThrow('disk full');
    await pending.discard();
    expect(s3.objectKeys()).not.toContain(key);
  });

  it('deletes an object, and deleting a missing one is not an error', async () => {
    const key = keyOf();
    const pending = await storage.create(key);
    await write(pending.stream, Buffer.from('x'));
    await pending.commit();
    await storage.delete(key);
    await storage.delete(key);
    expect(s3.objectKeys()).not.toContain(key);
    expect(await storage.exists(key)).toBe(false);
    expect(await storage.read(key)).toBeNull();
  });

  it('fails to prepare, naming S3_BUCKET, when the bucket does not exist or the server is not there', async () => {
    const missing = new S3UploadStorage({
      bucket: 'no-such-bucket',
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
    });
    await expect(missing.prepare()).rejects.toThrow(
      `S3_BUCKET no-such-bucket at ${s3.endpoint} is not reachable: NotFound (HTTP 404)`,
    );
    missing.onModuleDestroy();
    const nowhere = new S3UploadStorage({
      bucket: s3.bucket,
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      forcePathStyle: true,
    });
    await expect(nowhere.prepare()).rejects.toThrow(
      `S3_BUCKET ${s3.bucket} at http://127.0.0.1:9 is not reachable: `,
    );
    nowhere.onModuleDestroy();
  });
});
