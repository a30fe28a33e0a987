import { register } from 'node:module';

interface Tracing {
  shutdown(): Promise<void>;
}

let active: Tracing | null = null;

/**
 * Starts OpenTelemetry tracing (OTLP over HTTP to OTEL_EXPORTER_OTLP_ENDPOINT) with the http, express,
 * mysql2 and ioredis instrumentations. The service is ESM: Node's loader hands out ES module namespaces that
 * require-time patching cannot reach, so an import-in-the-middle loader hook is registered first, limited to
 * the modules these instrumentations patch, and the instrumented modules must be imported only after this
 * resolves (main.ts imports the application dynamically). Without the variable none of this is loaded.
 */
export async function startTracing(parentUrl: string): Promise<void> {
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', parentUrl, registerOptions);

  const [{ NodeSDK }, http, express, mysql2, ioredis] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-mysql2'),
    import('@opentelemetry/instrumentation-ioredis'),
  ]);
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? 'commerce-service',
    instrumentations: [
      new http.HttpInstrumentation({
        // Prometheus scrapes every few seconds would drown the traces of real requests.
        ignoreIncomingRequestHook: (request) => request.url?.split('?')[0] === '/metrics',
        // The WebSocket handshake carries the access token in its query string (headers are never recorded).
        redactedQueryParamsServer: ['token'],
      }),
      new express.ExpressInstrumentation(),
      new mysql2.MySQL2Instrumentation(),
      new ioredis.IORedisInstrumentation(),
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
  active = sdk;
}

/** Exports the spans still buffered and stops tracing; nothing to do when it was not started. */
export async function stopTracing(): Promise<void> {
  const tracing = active;
  active = null;
  await tracing?.shutdown();
}
