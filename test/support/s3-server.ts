import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** s3rver keeps each object's bytes in `<directory>/<bucket>/<key>._S3rver_object`. */
const OBJECT_SUFFIX = '._S3rver_object';
const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

export interface S3TestServer {
  /** What the service needs to store its uploads there (the credentials are s3rver's). */
  env: Record<string, string>;
  endpoint: string;
  bucket: string;
  /** Every request received, as `METHOD /path?query`, oldest first. */
  requests: string[];
  /** The keys of the objects in the bucket, sorted (read from the server's directory, so synchronously). */
  objectKeys(): string[];
  readObject(key: string): Buffer;
  close(): Promise<void>;
}

/**
 * A real S3-compatible server (s3rver, over HTTP on an ephemeral port, objects in a temporary directory)
 * with one empty bucket. Its signature check needs s3rver's credentials: they are put in this process's
 * environment, where the AWS SDK of an in-process service finds them, and in `env` for a child process.
 */
export async function startS3Server(): Promise<S3TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'commerce-s3-'));
  const bucket = `uploads-${randomBytes(4).toString('hex')}`;
  const s3rver = new S3rver({ directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
  await (s3rver as unknown as { configureBuckets(): Promise<void> }).configureBuckets();
  const handle = s3rver.callback();
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    void handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, CREDENTIALS);
  const bucketDir = join(directory, bucket);

  return {
    env: {
      ...CREDENTIALS,
      UPLOAD_STORAGE: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
    },
    endpoint,
    bucket,
    requests,
    objectKeys: () =>
      existsSync(bucketDir)
        ? readdirSync(bucketDir, { recursive: true, withFileTypes: true })
            .filter((entry) => entry.isFile() && entry.name.endsWith(OBJECT_SUFFIX))
            .map((entry) =>
              join(entry.parentPath, entry.name).slice(bucketDir.length + 1, -OBJECT_SUFFIX.length),
            )
            .sort()
        : [],
    readObject: (key) => readFileSync(join(bucketDir, `${key}${OBJECT_SUFFIX}`)),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
