import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { basename, join } from 'node:path';
import request from 'supertest';
import { OrphanUploadRemoval } from '../src/upload/orphan-upload-removal.js';
import { newStoredPath } from '../src/upload/upload-names.js';
import { UploadStorage } from '../src/upload/upload-storage.js';
import { Upload } from '../src/upload/upload.entity.js';
import { UploadService } from '../src/upload/upload.service.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { multipartBody, MULTIPART_TYPE, partHead, sampleFile, type FormPart } from './support/multipart.js';
import { startTestApp, TestApp } from './support/test-app.js';

const MAX_BYTES = 64 * 1024;
const ALLOWED = 'image/jpeg, image/png, image/gif, image/webp, application/pdf';
const ONLY_PART = 'send exactly one multipart part, named file, holding the file';
/** What a product's `image` accepts (catalogue module). */
const PRODUCT_IMAGE_PATH = /^\d{4}\/\d{2}\/[A-Za-z0-9_-]{8,64}\.[a-z0-9]{2,5}$/;

/** Collects any response body as raw bytes (superagent hands parsers Node's response stream). */
function binary(res: request.Response, done: (error: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as http.IncomingMessage;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

/** Polls (for up to 10 s) until `condition` holds: for effects of a dropped connection, which no response reports. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never happened: ${what}`);
}

describe('upload', () => {
  let t: TestApp;
  let user: Account;

  const api = () => request(t.url);
  const stored = () => t.storedUploads();
  const bearer = () => `Bearer ${user.token}`;
  const postForm = (parts: FormPart[], options: { close?: boolean } = {}) =>
    api()
      .post('/api/v1/upload')
      .set('Authorization', bearer())
      .set('Content-Type', MULTIPART_TYPE)
      .send(multipartBody(parts, options));
  const filePart = (
    content: Buffer | string,
    filename = 'photo.png',
    contentType = 'image/png',
  ): FormPart => ({
    name: 'file',
    filename,
    contentType,
    content,
  });
  const fetchStored = (filename: string) =>
    api().get(`/api/v1/uploads/${filename}`).buffer(true).parse(binary);

  /** Asserts a 400 envelope with these details and that storage is as it was before the request. */
  async function expectRefused(send: () => request.Test, details: string): Promise<void> {
    const before = stored();
    const res = await send().expect(400);
    expect(res.body).toEqual({
      code: 400,
      message: 'Bad Request',
      data: { details, errors: [{ field: 'file', rule: expect.any(String), message: details }] },
    });
    expect(stored()).toEqual(before);
  }

  beforeAll(async () => {
    t = await startTestApp({ UPLOAD_MAX_BYTES: String(MAX_BYTES) });
    user = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('POST /upload', () => {
    it('stores the file under YYYY/MM/<random>.<ext> and returns that path, the name, the exact size and the type', async () => {
      const content = sampleFile('image/png', 5000);
      const before = stored();
      const res = await api()
        .post('/api/v1/upload')
        .set('Authorization', bearer())
        .attach('file', content, { filename: 'espresso-cup.png', contentType: 'image/png' })
        .expect(200);

      const now = new Date();
      const month = `${now.getUTCFullYear()}/${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
      expect(res.body).toMatchObject({
        code: 200,
        message: 'OK',
        data: {
          filename: expect.stringMatching(new RegExp(`^${month}/[0-9a-f]{32}\\.png$`)),
          original_name: 'espresso-cup.png',
          size: 5000,
          content_type: 'image/png',
        },
      });
      const { filename } = res.body.data;
      expect(filename).toMatch(PRODUCT_IMAGE_PATH);
      expect(stored()).toEqual([...before, filename].sort());
      expect(t.readUpload(filename).equals(content)).toBe(true);
    });

    it('serves the stored bytes back unchanged, read-only, with the detected type and nosniff, without a token', async () => {
      const content = sampleFile('image/png', 20000);
      const upload = await postForm([filePart(content)]).expect(200);
      const { filename } = upload.body.data;

      const res = await fetchStored(filename).expect(200);
      expect(Buffer.isBuffer(res.body) && res.body.equals(content)).toBe(true);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['content-length']).toBe('20000');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');

      const head = await api().head(`/api/v1/uploads/${filename}`).expect(200);
      expect(head.headers['content-type']).toBe('image/png');
      expect(head.headers['content-length']).toBe('20000');

      for (const method of ['put', 'post', 'patch'] as const) {
        const write = await api()
          [method](`/api/v1/uploads/${filename}`)
          .set('Authorization', bearer())
          .expect(404);
        expect(write.body.code).toBe(404);
      }
      expect(t.readUpload(filename).equals(content)).toBe(true);
    });

    it.each([
      ['image/jpeg', 'jpg'],
      ['image/gif', 'gif'],
      ['image/webp', 'webp'],
      ['application/pdf', 'pdf'],
    ])('accepts %s, detected from its bytes, stored as .%s and served with that type', async (type, ext) => {
      const content = sampleFile(type, 3000);
      const res = await postForm([filePart(content, `sample.${ext}`, 'application/octet-stream')]).expect(
        200,
      );
      expect(res.body.data).toMatchObject({ size: 3000, content_type: type, original_name: `sample.${ext}` });
      expect(res.body.data.filename).toMatch(new RegExp(`^\\d{4}/\\d{2}/[0-9a-f]{32}\\.${ext}$`));
      const served = await fetchStored(res.body.data.filename).expect(200);
      expect(served.headers['content-type']).toBe(type);
      expect(served.body.equals(content)).toBe(true);
    });

    it('decides the type from the bytes: a PNG declared as a PDF is stored and served as a PNG', async () => {
      const content = sampleFile('image/png', 1200);
      const res = await postForm([filePart(content, 'report.pdf', 'application/pdf')]).expect(200);
      expect(res.body.data).toMatchObject({
        original_name: 'report.pdf',
        content_type: 'image/png',
        size: 1200,
      });
      expect(res.body.data.filename).toMatch(/\.png$/);
      const served = await fetchStored(res.body.data.filename).expect(200);
      expect(served.headers['content-type']).toBe('image/png');
    });

    it.each([
      ['a text file declared as PNG', 'notes.png', 'image/png', 'just some text, not an image\n'],
      [
        'an SVG with a script',
        'logo.svg',
        'image/svg+xml',
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>',
      ],
      ['an SVG declared as PNG', 'logo.png', 'image/png', '<?xml version="1.0"?><svg/>'],
      ['an HTML page', 'page.html', 'text/html', '<!DOCTYPE html><html><body>hi</body></html>'],
      ['an HTML page declared as JPEG', 'photo.jpg', 'image/jpeg', '<html><script>alert(1)</script></html>'],
      ['a file shorter than any signature', 'tiny.png', 'image/png', 'GIF'],
    ])(
      'refuses %s (the declared type is not trusted) and stores nothing',
      async (_label, name, type, content) => {
        await expectRefused(
          () => postForm([filePart(content, name, type)]),
          `file content must be one of ${ALLOWED} (detected from its bytes; the declared type is not trusted)`,
        );
      },
    );

    it('shows only the last segment of a path-like name and stores nothing outside the upload folder', async () => {
      const res = await postForm([filePart(sampleFile('image/png'), '../../x.png')]).expect(200);
      expect(res.body.data.original_name).toBe('x.png');
      expect(res.body.data.filename).toMatch(/^\d{4}\/\d{2}\/[0-9a-f]{32}\.png$/);
      expect(existsSync(join(t.config.upload.dir, '..', 'x.png'))).toBe(false);
      expect(existsSync(join(t.config.upload.dir, '..', '..', 'x.png'))).toBe(false);
      expect(stored()).toContain(res.body.data.filename);

      const windows = await postForm([filePart(sampleFile('image/png'), '..\\..\\Windows\\x.png')]).expect(
        200,
      );
      expect(windows.body.data.original_name).toBe('x.png');
    });

    it('removes NUL and other control characters from the name (RFC 5987 filename*)', async () => {
      const res = await postForm([
        {
          name: 'file',
          filenameStar: "UTF-8''..%2F..%2Fevil%00name%0D%0A%E2%80%AEgnp.exe",
          contentType: 'image/png',
          content: sampleFile('image/png'),
        },
      ]).expect(200);
      expect(res.body.data.original_name).toBe('evilnamegnp.exe');
      expect(res.body.data.filename).toMatch(/^\d{4}\/\d{2}\/[0-9a-f]{32}\.png$/);
    });

    it('refuses a part header holding a raw NUL byte as malformed, storing nothing', async () => {
      await expectRefused(
        () => postForm([filePart(sampleFile('image/png'), 'evil\0name.png')]),
        'malformed multipart body: Malformed part header',
      );
    });

    it('keeps a UTF-8 name as sent', async () => {
      const res = await postForm([filePart(sampleFile('image/gif'), 'café ☕ 写真.gif', 'image/gif')]).expect(
        200,
      );
      expect(res.body.data.original_name).toBe('café ☕ 写真.gif');
    });

    it('accepts a file of exactly UPLOAD_MAX_BYTES and refuses one byte more, storing nothing', async () => {
      const exact = await postForm([filePart(sampleFile('image/png', MAX_BYTES))]).expect(200);
      expect(exact.body.data.size).toBe(MAX_BYTES);
      expect(t.readUpload(exact.body.data.filename).length).toBe(MAX_BYTES);

      await expectRefused(
        () => postForm([filePart(sampleFile('image/png', MAX_BYTES + 1))]),
        `file must not be larger than ${MAX_BYTES} bytes`,
      );
      await expectRefused(
        () => postForm([filePart(sampleFile('image/png', MAX_BYTES * 8))]),
        `file must not be larger than ${MAX_BYTES} bytes`,
      );
    });

    it('refuses an empty file', async () => {
      await expectRefused(() => postForm([filePart('')]), 'file must not be empty');
      await expectRefused(
        () => postForm([filePart('', '', 'application/octet-stream')]),
        'file must not be empty',
      );
    });

    it('refuses a form without any part', async () => {
      await expectRefused(() => postForm([]), `file is required: ${ONLY_PART}`);
    });

    it('refuses a file in a part with another name', async () => {
      await expectRefused(
        () => postForm([{ ...filePart(sampleFile('image/png')), name: 'avatar' }]),
        `unexpected part "avatar": ${ONLY_PART}`,
      );
      await expectRefused(
        () => postForm([{ ...filePart(sampleFile('image/png')), name: null }]),
        `unexpected part without a name: ${ONLY_PART}`,
      );
    });

    it('refuses two files, also when the first was valid, storing neither', async () => {
      await expectRefused(
        () =>
          postForm([
            filePart(sampleFile('image/png')),
            filePart(sampleFile('image/jpeg'), 'b.jpg', 'image/jpeg'),
          ]),
        `only one file may be sent: ${ONLY_PART}`,
      );
      await expectRefused(
        () =>
          postForm([
            filePart(sampleFile('image/png')),
            { ...filePart(sampleFile('image/png')), name: 'other' },
          ]),
        `only one file may be sent: ${ONLY_PART}`,
      );
    });

    it('refuses text fields, before or after the file, and a file sent as a text field', async () => {
      const field: FormPart = { name: 'description', content: 'a photo' };
      await expectRefused(
        () => postForm([filePart(sampleFile('image/png')), field]),
        `text fields are not accepted: ${ONLY_PART}`,
      );
      await expectRefused(
        () => postForm([field, filePart(sampleFile('image/png'))]),
        `text fields are not accepted: ${ONLY_PART}`,
      );
      await expectRefused(
        () => postForm([{ name: 'file', content: sampleFile('image/png') }]),
        `text fields are not accepted: ${ONLY_PART}`,
      );
    });

    it('refuses a second part that is not form data at all', async () => {
      await expectRefused(
        () =>
          postForm([
            filePart(sampleFile('image/png')),
            { name: null, rawHeaders: 'X-Note: hi', content: 'x' },
          ]),
        `the form holds more than one part: ${ONLY_PART}`,
      );
    });

    it('refuses a body that ends before the closing boundary', async () => {
      await expectRefused(
        () => postForm([filePart(sampleFile('image/png'))], { close: false }),
        'malformed multipart body: Unexpected end of form',
      );
    });

    it.each([
      ['JSON', 'application/json', '{"file":"iVBORw0KGgo="}'],
      ['a URL-encoded form', 'application/x-www-form-urlencoded', 'file=abc'],
      ['plain text', 'text/plain', 'hello'],
      ['multipart without a boundary', 'multipart/form-data', '--x--\r\n'],
      ['multipart with parameters but no boundary', 'multipart/form-data; charset=utf-8', '--x--\r\n'],
      ['another multipart type', 'multipart/mixed; boundary=x', '--x--\r\n'],
    ])('refuses a request that is %s', async (_label, type, body) => {
      await expectRefused(
        () =>
          api().post('/api/v1/upload').set('Authorization', bearer()).set('Content-Type', type).send(body),
        'Content-Type must be multipart/form-data with a boundary',
      );
    });

    it('refuses a request without a body or Content-Type', async () => {
      await expectRefused(
        () => api().post('/api/v1/upload').set('Authorization', bearer()),
        'Content-Type must be multipart/form-data with a boundary',
      );
    });

    it('needs a valid bearer token (401) and stores nothing without one', async () => {
      const before = stored();
      const body = multipartBody([filePart(sampleFile('image/png'))]);
      const missing = await api()
        .post('/api/v1/upload')
        .set('Content-Type', MULTIPART_TYPE)
        .send(body)
        .expect(401);
      expect(missing.body).toEqual({
        code: 401,
        message: 'Unauthorized',
        data: { details: 'Missing bearer token' },
      });
      const invalid = await api()
        .post('/api/v1/upload')
        .set('Authorization', 'Bearer not-a-token')
        .set('Content-Type', MULTIPART_TYPE)
        .send(body)
        .expect(401);
      expect(invalid.body.data.details).toBe('Invalid bearer token');
      expect(stored()).toEqual(before);
    });

    it('removes the partial file when the client goes away in the middle of the upload', async () => {
      const before = stored();
      const client = http.request(`${t.url}/api/v1/upload`, {
        method: 'POST',
        headers: {
          Authorization: bearer(),
          'Content-Type': MULTIPART_TYPE,
          'Content-Length': String(MAX_BYTES),
        },
      });
      client.on('error', () => undefined); // the connection is dropped on purpose
      client.write(Buffer.concat([partHead(filePart('')), sampleFile('image/png', 8192)]));

      if (t.s3 === null) {
        await eventually(
          () => stored().some((path) => path.startsWith('.incoming/')),
          'a partial file is written',
        );
      } else {
        // Below one part (5 MiB) the bytes wait in memory: the server sees nothing before the end.
        const sent = t.s3.requests.length;
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(t.s3.requests.length).toBe(sent);
      }
      client.destroy();
      await eventually(() => stored().length === before.length, 'the partial file is removed');
      expect(stored()).toEqual(before);
    });
  });

  describe('GET /uploads/{path}', () => {
    it.each([
      ['an unknown name', '2026/11/0123456789abcdef0123456789abcdef.png'],
      ['a path leaving the folder (encoded slashes)', '2026/11/..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd'],
      ['a path leaving the folder (encoded dots)', '%2e%2e/%2e%2e/secret.png'],
      ['the incoming folder', '.incoming/x/0123456789abcdef0123456789abcdef.part'],
      ['an extension that is never stored', '2026/11/0123456789abcdef0123456789abcdef.svg'],
    ])('answers 404 for %s', async (_label, path) => {
      const res = await api().get(`/api/v1/uploads/${path}`).expect(404);
      expect(res.body).toEqual({
        code: 404,
        message: 'Not Found',
        data: { details: 'No uploaded file at this path' },
      });
      expect(res.headers['cache-control']).toBeUndefined();
    });

    it('serves nothing that POST /upload did not store, even inside the upload folder', async () => {
      mkdirSync(join(t.config.upload.dir, '2026', '11'), { recursive: true });
      writeFileSync(join(t.config.upload.dir, '2026', '11', 'notes.html'), '<script>alert(1)</script>');
      const secret = `${basename(t.config.upload.dir)}-secret.png`;
      writeFileSync(join(t.config.upload.dir, '..', secret), 'secret');
      try {
        await api().get('/api/v1/uploads/2026/11/notes.html').expect(404);
        await api().get(`/api/v1/uploads/2026/11/..%2F..%2F${secret}`).expect(404);
        await api().get(`/api/v1/uploads/2026/..%2F..%2F/${secret}`).expect(404);
      } finally {
        rmSync(join(t.config.upload.dir, '..', secret));
      }
    });
  });

  describe('GET /uploads/{filename}: only the documented form, exactly', () => {
    const notFound = {
      code: 404,
      message: 'Not Found',
      data: { details: 'No uploaded file at this path' },
    };
    /** `path` with its first character written as a percent escape (`2` as `%32`). */
    const escapeFirst = (path: string) => `%${path.charCodeAt(0).toString(16).toUpperCase()}${path.slice(1)}`;

    it('answers 404 for a trailing slash or percent-encoded characters, and serves the exact path', async () => {
      const content = sampleFile('image/png');
      const { filename } = (await postForm([filePart(content)]).expect(200)).body.data;
      const [year, month, name] = filename.split('/');
      for (const path of [
        `${filename}/`,
        `${escapeFirst(year)}/${month}/${name}`,
        `${year}/${escapeFirst(month)}/${name}`,
        `${year}/${month}/${escapeFirst(name)}`,
      ]) {
        const res = await api().get(`/api/v1/uploads/${path}`).expect(404);
        expect(res.body).toEqual(notFound);
        expect(res.headers['cache-control']).toBeUndefined();
      }
      const served = await fetchStored(filename).expect(200);
      expect(served.body.equals(content)).toBe(true);
    });

    it('refuses DELETE of a path with a trailing slash or an escape (404): the upload and its row stay', async () => {
      const { filename } = (await postForm([filePart(sampleFile('image/png'))]).expect(200)).body.data;
      for (const path of [`${filename}/`, escapeFirst(filename)]) {
        const res = await api().delete(`/api/v1/uploads/${path}`).set('Authorization', bearer()).expect(404);
        expect(res.body).toEqual(notFound);
      }
      expect(await t.dataSource.getRepository(Upload).countBy({ path: filename })).toBe(1);
      expect(stored()).toContain(filename);
    });

    it('serves a PDF as an attachment (never rendered on the API origin) and images inline', async () => {
      const pdf = sampleFile('application/pdf', 3000);
      const pdfName = (await postForm([filePart(pdf, 'invoice.pdf', 'application/pdf')]).expect(200)).body
        .data.filename;
      const res = await fetchStored(pdfName).expect(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(res.headers['content-disposition']).toBe('attachment');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.body.equals(pdf)).toBe(true);
      const head = await api().head(`/api/v1/uploads/${pdfName}`).expect(200);
      expect(head.headers['content-disposition']).toBe('attachment');

      for (const type of ['image/png', 'image/jpeg', 'image/gif', 'image/webp']) {
        const { filename } = (await postForm([filePart(sampleFile(type), 'x', type)]).expect(200)).body.data;
        const image = await fetchStored(filename).expect(200);
        expect(image.headers['content-type']).toBe(type);
        expect(image.headers['content-disposition']).toBeUndefined();
      }
      const [row] = await t.dataSource.getRepository(Upload).findBy({ path: pdfName });
      expect(row.contentType).toBe('application/pdf');
    });
  });

  describe('UploadService.holdForProduct (for product images)', () => {
    it('is true only for a path returned by POST /upload that exists', async () => {
      const res = await postForm([filePart(sampleFile('image/webp'), 'a.webp', 'image/webp')]).expect(200);
      const uploads = t.app.get(UploadService);
      const held = (path: string) =>
        t.dataSource.transaction((manager) => uploads.holdForProduct(manager, path));
      expect(await held(res.body.data.filename)).toBe(true);
      expect(await held('2026/11/0123456789abcdef0123456789abcdef.webp')).toBe(false);
      expect(await held(`../${res.body.data.filename}`)).toBe(false);
      expect(await held(`${res.body.data.filename}/`)).toBe(false);
      expect(await held('')).toBe(false);
    });
  });

  it('documents both endpoints in OpenAPI, the upload as a multipart body with one binary part', async () => {
    const doc = (await api().get('/api/docs-json').expect(200)).body;
    const upload = doc.paths['/api/v1/upload'].post;
    expect(upload.requestBody.content['multipart/form-data'].schema).toEqual({
      type: 'object',
      required: ['file'],
      properties: { file: { type: 'string', format: 'binary' } },
    });
    expect(upload.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(upload.responses).sort()).toEqual(['200', '400', '401', '429', '500']);
    expect(upload.responses['200'].content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/UploadResultDto',
    });
    expect(Object.keys(doc.components.schemas.UploadResultDto.properties).sort()).toEqual([
      'content_type',
      'filename',
      'original_name',
      'size',
    ]);
    const download = doc.paths['/api/v1/uploads/{year}/{month}/{name}'].get;
    expect(download.security).toBeUndefined();
    expect(Object.keys(download.responses).sort()).toEqual(['200', '404', '429', '500']);
    expect(Object.keys(download.responses['200'].content)).toEqual([
      'image/jpeg',
      'image/png',
      'image/gif',
      'image/webp',
      'application/pdf',
    ]);
    expect(Object.keys(download.responses['404'].content)).toEqual(['application/json']);
    const remove = doc.paths['/api/v1/uploads/{year}/{month}/{name}'].delete;
    expect(remove.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(remove.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '500']);
  });
});

describe('upload with UPLOAD_ALLOWED_TYPES=image/png', () => {
  let t: TestApp;
  let user: Account;

  beforeAll(async () => {
    t = await startTestApp({ UPLOAD_ALLOWED_TYPES: 'image/png' });
    user = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('refuses a recognised type that is not allowed, naming it', async () => {
    const res = await request(t.url)
      .post('/api/v1/upload')
      .set('Authorization', `Bearer ${user.token}`)
      .set('Content-Type', MULTIPART_TYPE)
      .send(multipartBody([{ name: 'file', filename: 'a.pdf', content: sampleFile('application/pdf') }]))
      .expect(400);
    expect(res.body.data.details).toBe(
      'file content is application/pdf, which is not allowed (allowed: image/png)',
    );
    expect(t.storedUploads()).toEqual([]);
  });
});

describe('upload ownership and lifetime', () => {
  const QUOTA = 200_000;
  const ORPHAN_TTL_MS = 1000;
  let t: TestApp;
  let admin: Account;
  const api = () => request(t.url);
  const onMysql = () => t.config.database.type === 'mysql';

  /** Storage is asserted only through the application's own UploadStorage, whatever its implementation. */
  const inStorage = (path: string) => t.app.get(UploadStorage).exists(path);
  const uploadRow = (path: string) => t.dataSource.getRepository(Upload).findOneBy({ path });
  const rowsOf = (owner: Account) => t.dataSource.getRepository(Upload).countBy({ ownerId: owner.id });
  const job = () => t.app.get(OrphanUploadRemoval);
  const afterTtl = () => new Date(Date.now() + ORPHAN_TTL_MS + 1000);

  async function upload(owner: Account, size = 2048): Promise<string> {
    const res = await api()
      .post('/api/v1/upload')
      .auth(owner.token, { type: 'bearer' })
      .attach('file', sampleFile('image/png', size), { filename: 'p.png', contentType: 'image/png' })
      .expect(200);
    return res.body.data.filename;
  }
  const deleteUpload = (path: string, as?: Account) => {
    const req = api().delete(`/api/v1/uploads/${path}`);
    return as === undefined ? req : req.auth(as.token, { type: 'bearer' });
  };
  async function productWithImage(image: string): Promise<number> {
    const created = await api()
      .post('/api/v1/products')
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'Mug', price: 5, stock: 1, category_id: 1 })
      .expect(201);
    await setImage(created.body.data.id, image).expect(200);
    return created.body.data.id;
  }
  const setImage = (productId: number, image: string) =>
    api().put(`/api/v1/products/${productId}`).auth(admin.token, { type: 'bearer' }).send({ image });

  /** A file put in storage without a row, as every file stored before the uploads table was. */
  async function storeWithoutRow(): Promise<string> {
    const path = newStoredPath('png');
    const pending = await t.app.get(UploadStorage).create(path);
    pending.stream.end(sampleFile('image/png'));
    await pending.commit();
    return path;
  }

  beforeAll(async () => {
    t = await startTestApp({
      ...ADMIN_ENV,
      UPLOAD_MAX_BYTES: String(MAX_BYTES),
      UPLOAD_QUOTA_BYTES: String(QUOTA),
      UPLOAD_ORPHAN_TTL: `${ORPHAN_TTL_MS / 1000}s`,
      UPLOAD_ORPHAN_INTERVAL: '24h', // the tests run the job themselves
    });
    admin = await loginAdmin(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('records each upload with its owner, size, type and creation time, in step with storage', async () => {
    const owner = await createAccount(t);
    const before = Date.now();
    const path = await upload(owner, 3000);
    const row = await uploadRow(path);
    expect(row).toMatchObject({ path, ownerId: owner.id, size: 3000, contentType: 'image/png' });
    expect(row!.createdAt.getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(row!.createdAt.getTime()).toBeLessThanOrEqual(Date.now());
    expect(await inStorage(path)).toBe(true);
  });

  describe('DELETE /uploads/{filename}', () => {
    it('lets the owner delete their file: 200, then the file, its row and its URL are gone', async () => {
      const owner = await createAccount(t);
      const path = await upload(owner);
      const res = await deleteUpload(path, owner).expect(200);
      expect(res.body).toEqual({ code: 200, message: 'OK', data: null });
      expect(await inStorage(path)).toBe(false);
      expect(await uploadRow(path)).toBeNull();
      await api().get(`/api/v1/uploads/${path}`).expect(404);
      const again = await deleteUpload(path, owner).expect(404);
      expect(again.body.data.details).toBe('No uploaded file at this path');
    });

    it("lets an admin delete any user's file", async () => {
      const owner = await createAccount(t);
      const path = await upload(owner);
      await deleteUpload(path, admin).expect(200);
      expect(await inStorage(path)).toBe(false);
      expect(await uploadRow(path)).toBeNull();
    });

    it("refuses another user's delete with 403 (uploads are public: 404 would hide nothing) and keeps the file", async () => {
      const owner = await createAccount(t);
      const other = await createAccount(t);
      const path = await upload(owner);
      const res = await deleteUpload(path, other).expect(403);
      expect(res.body).toEqual({
        code: 403,
        message: 'Forbidden',
        data: { details: 'Only the owner of an upload or an admin may delete it' },
      });
      expect(await inStorage(path)).toBe(true);
      expect(await uploadRow(path)).not.toBeNull();
    });

    it('needs a token (401)', async () => {
      const path = await upload(await createAccount(t));
      await deleteUpload(path).expect(401);
      expect(await inStorage(path)).toBe(true);
    });

    it('refuses with 400 while a product shows the file, keeping it; allows it once the product lets go', async () => {
      const owner = await createAccount(t);
      const path = await upload(owner);
      const productId = await productWithImage(path);
      for (const actor of [owner, admin]) {
        const res = await deleteUpload(path, actor).expect(400);
        const message = `the file is an image of product ${productId}; remove it from that product's images first`;
        expect(res.body).toEqual({
          code: 400,
          message: 'Bad Request',
          data: { details: message, errors: [{ field: 'filename', rule: 'inUse', message }] },
        });
      }
      expect(await inStorage(path)).toBe(true);
      expect(await uploadRow(path)).not.toBeNull();
      await api().get(`/api/v1/uploads/${path}`).expect(200);

      await setImage(productId, '').expect(200);
      await deleteUpload(path, owner).expect(200);
      expect(await inStorage(path)).toBe(false);
    });

    it('answers 404 for a path that is not an upload, and for a file stored before uploads had owners', async () => {
      await deleteUpload('2026/11/0123456789abcdef0123456789abcdef.png', admin).expect(404);
      await deleteUpload('2026/11/..%2F..%2Fx.png', admin).expect(404);
      const legacy = await storeWithoutRow();
      await deleteUpload(legacy, admin).expect(404);
      expect(await inStorage(legacy)).toBe(true);
    });
  });

  describe('UPLOAD_QUOTA_BYTES', () => {
    const quotaMessage = (used: number) =>
      `file would pass the upload quota of ${QUOTA} bytes per 24 hours (UPLOAD_QUOTA_BYTES): ` +
      `${used} bytes used, ${QUOTA - used} left`;
    const expectQuotaRefusal = async (owner: Account, size: number, used: number) => {
      const rowsBefore = await rowsOf(owner);
      const res = await api()
        .post('/api/v1/upload')
        .auth(owner.token, { type: 'bearer' })
        .attach('file', sampleFile('image/png', size), { filename: 'p.png', contentType: 'image/png' })
        .expect(400);
      expect(res.body).toEqual({
        code: 400,
        message: 'Bad Request',
        data: {
          details: quotaMessage(used),
          errors: [{ field: 'file', rule: 'quota', message: quotaMessage(used) }],
        },
      });
      expect(await rowsOf(owner)).toBe(rowsBefore);
    };

    it('accepts uploads up to the quota exactly, refuses one byte more, and counts per user', async () => {
      const owner = await createAccount(t);
      for (let i = 0; i < 3; i += 1) await upload(owner, 60_000);
      await expectQuotaRefusal(owner, 20_001, 180_000);
      const last = await upload(owner, 20_000);
      expect(await uploadRow(last)).toMatchObject({ size: 20_000 });
      await expectQuotaRefusal(owner, 16, QUOTA);
      expect(await rowsOf(owner)).toBe(4);

      // Another user's quota is untouched; a deleted file gives its bytes back.
      await upload(await createAccount(t), 60_000);
      await deleteUpload(last, owner).expect(200);
      await upload(owner, 20_000);
      await expectQuotaRefusal(owner, 1000, QUOTA);
    });
  });

  describe('orphan removal', () => {
    it('removes files no product uses once UPLOAD_ORPHAN_TTL has passed, and keeps product images', async () => {
      const owner = await createAccount(t);
      const orphan = await upload(owner);
      const image = await upload(owner);
      await productWithImage(image);

      await job().run();
      expect(await inStorage(orphan)).toBe(true); // younger than the TTL

      await new Promise((resolve) => setTimeout(resolve, ORPHAN_TTL_MS + 100));
      expect(await job().run()).toBeGreaterThanOrEqual(1);
      expect(await inStorage(orphan)).toBe(false);
      expect(await uploadRow(orphan)).toBeNull();
      expect(await inStorage(image)).toBe(true);
      expect(await uploadRow(image)).not.toBeNull();
      await api().get(`/api/v1/uploads/${image}`).expect(200);
    });

    it('removes the image of a deleted product: a soft-deleted product uses nothing', async () => {
      const image = await upload(await createAccount(t));
      const productId = await productWithImage(image);
      await job().run(afterTtl());
      expect(await inStorage(image)).toBe(true);
      await api().delete(`/api/v1/products/${productId}`).auth(admin.token, { type: 'bearer' }).expect(200);
      await job().run(afterTtl());
      expect(await inStorage(image)).toBe(false);
      expect(await uploadRow(image)).toBeNull();
    });

    it('keeps a file a product takes after the job found it and before it removes it', async () => {
      const path = await upload(await createAccount(t));
      const now = afterTtl();
      const uploads = t.app.get(UploadService);
      expect(await uploads.findOrphans(now)).toContain(path);

      const productId = await productWithImage(path); // between the job's two steps
      expect(await uploads.removeIfOrphan(path, now)).toBe(false);
      expect(await inStorage(path)).toBe(true);
      expect(await uploadRow(path)).not.toBeNull();
      const product = await api().get(`/api/v1/products/${productId}`).auth(admin.token, { type: 'bearer' });
      expect(product.body.data.image).toBe(path);
      await api().get(`/api/v1/uploads/${path}`).expect(200);
    });

    it('refuses a product the file the job has just removed', async () => {
      const path = await upload(await createAccount(t));
      expect(await t.app.get(UploadService).removeIfOrphan(path, afterTtl())).toBe(true);
      const created = await api()
        .post('/api/v1/products')
        .auth(admin.token, { type: 'bearer' })
        .send({ name: 'Mug', price: 5, stock: 1, category_id: 1 })
        .expect(201);
      const res = await setImage(created.body.data.id, path).expect(400);
      expect(res.body.data.errors).toEqual([
        {
          field: 'image',
          rule: 'uploadedFile',
          message: 'image must be the filename of a file uploaded through /upload',
        },
      ]);
    });

    it('waits for a product write holding the file and then keeps it (MySQL/MariaDB row locks)', async () => {
      if (!onMysql()) return; // SQLite runs one transaction at a time: the interleaving cannot happen
      const path = await upload(await createAccount(t));
      const created = await api()
        .post('/api/v1/products')
        .auth(admin.token, { type: 'bearer' })
        .send({ name: 'Mug', price: 5, stock: 1, category_id: 1 })
        .expect(201);
      // What a product write does: lock the upload's row, then set the image, in one transaction.
      const writer = t.dataSource.createQueryRunner();
      await writer.connect();
      await writer.startTransaction();
      await writer.query('SELECT path FROM uploads WHERE path = ? FOR UPDATE', [path]);
      await writer.query('UPDATE products SET image = ? WHERE id = ?', [path, created.body.data.id]);
      let settled = false;
      const removal = t.app
        .get(UploadService)
        .removeIfOrphan(path, afterTtl())
        .finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false); // waiting for the row
      await writer.commitTransaction();
      await writer.release();
      expect(await removal).toBe(false);
      expect(await inStorage(path)).toBe(true);
      expect(await uploadRow(path)).not.toBeNull();
    });

    it('is safe when several instances run it at once: each orphan is removed exactly once', async () => {
      await job().run(afterTtl()); // earlier tests' orphans
      const owner = await createAccount(t);
      const paths = [await upload(owner), await upload(owner), await upload(owner)];
      const now = afterTtl();
      const counts = await Promise.all([job().run(now), job().run(now), job().run(now)]);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(paths.length);
      for (const path of paths) {
        expect(await inStorage(path)).toBe(false);
        expect(await uploadRow(path)).toBeNull();
      }
      expect(await job().run(now)).toBe(0);
    });

    it('never touches a file stored before uploads had rows, which products may still use', async () => {
      const legacy = await storeWithoutRow();
      await job().run(afterTtl());
      expect(await inStorage(legacy)).toBe(true);
      const productId = await productWithImage(legacy);
      const product = await api().get(`/api/v1/products/${productId}`).auth(admin.token, { type: 'bearer' });
      expect(product.body.data.image).toBe(legacy);
    });
  });
});
