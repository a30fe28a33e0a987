import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { LocalDiskStorage } from './upload-storage.js';

const KEY = '2026/11/0123456789abcdef0123456789abcdef.png';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

const write = (stream: NodeJS.WritableStream, data: Buffer) =>
  new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.end(data, () => resolve());
  });

describe('LocalDiskStorage', () => {
  let root: string;
  let storage: LocalDiskStorage;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'upload-storage-'));
    storage = new LocalDiskStorage(root);
    await storage.prepare();
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('keeps a new file out of its key until commit, then serves exactly its bytes', async () => {
    const data = Buffer.from([0, 1, 2, 13, 10, 255, 254]);
    const pending = await storage.create(KEY);
    await write(pending.stream, data);
    expect(await storage.exists(KEY)).toBe(false);
    expect(await storage.read(KEY)).toBeNull();
    expect(filesUnder(root)).toEqual([expect.stringMatching(/^\.incoming\/[0-9a-f]{32}\.part$/)]);

    await pending.commit();
    expect(filesUnder(root)).toEqual([KEY]);
    expect(readFileSync(join(root, KEY))).toEqual(data);
    expect(await storage.exists(KEY)).toBe(true);
    const stored = await storage.read(KEY);
    expect(stored?.size).toBe(data.length);
    expect(await buffer(stored!.stream)).toEqual(data);
  });

  it('leaves no file behind when a pending file is discarded, written or not', async () => {
    const written = await storage.create(KEY);
    await write(written.stream, Buffer.from('partial'));
    await written.discard();
    const untouched = await storage.create(KEY);
    await untouched.discard();
    const midway = await storage.create(KEY);
    midway.stream.write(Buffer.from('half'));
    await midway.discard();
    expect(filesUnder(root)).toEqual([]);
    expect(await storage.exists(KEY)).toBe(false);
  });

  it('refuses to commit a file whose write failed', async () => {
    const pending = await storage.create(KEY);
    pending.stream.destroy(new Error('disk full'));
    await expect(pending.commit()).rejects.toThrow('disk full');
    await pending.discard();
    expect(filesUnder(root)).toEqual([]);
  });

  it('deletes an object, and deleting a key without one is not an error', async () => {
    const pending = await storage.create(KEY);
    await write(pending.stream, Buffer.from('x'));
    await pending.commit();
    await storage.delete(KEY);
    expect(await storage.exists(KEY)).toBe(false);
    expect(filesUnder(root)).toEqual([]);
    await expect(storage.delete(KEY)).resolves.toBeUndefined();
    await expect(storage.delete(`../${KEY}`)).rejects.toThrow('outside the upload directory');
  });

  it('never reaches outside the root or into the incoming folder', async () => {
    const outside = `${basename(root)}-outside.png`;
    writeFileSync(join(root, '..', outside), 'x');
    try {
      await expect(storage.exists(`../${outside}`)).rejects.toThrow('outside the upload directory');
      await expect(storage.read(`../${outside}`)).rejects.toThrow('outside the upload directory');
      await expect(storage.create('../../x.png')).rejects.toThrow('outside the upload directory');
      await expect(storage.read('.incoming/a.part')).rejects.toThrow('outside the upload directory');
    } finally {
      rmSync(join(root, '..', outside));
    }
  });

  it('treats a missing file or a directory as absent', async () => {
    const pending = await storage.create(KEY);
    await write(pending.stream, Buffer.from('x'));
    await pending.commit();
    expect(await storage.exists('2026/11')).toBe(false);
    expect(await storage.read('2026/11')).toBeNull();
    expect(await storage.read('2026/12/0123456789abcdef0123456789abcdef.png')).toBeNull();
    expect(await storage.exists(`${KEY}/deeper.png`)).toBe(false);
  });

  it('deletes a stored file, and deleting a missing one is not an error', async () => {
    const pending = await storage.create(KEY);
    await write(pending.stream, Buffer.from('x'));
    await pending.commit();
    await storage.delete(KEY);
    await storage.delete(KEY);
    expect(filesUnder(root)).toEqual([]);
    expect(await storage.exists(KEY)).toBe(false);
  });

  it('fails to prepare, naming UPLOAD_DIR, when the directory cannot be created', async () => {
    writeFileSync(join(root, 'a-file'), 'x');
    const blocked = new LocalDiskStorage(join(root, 'a-file', 'uploads'));
    await expect(blocked.prepare()).rejects.toThrow(/^UPLOAD_DIR .*a-file\/uploads is not writable: ENOTDIR/);
  });
});
