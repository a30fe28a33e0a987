import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import { trace } from '@opentelemetry/api';

type JsonLogOptions = { context: string; logLevel: LogLevel };

/**
 * The JSON console logger with the current trace's `traceId` and `spanId` in every entry written while a
 * span is active, so a request's log lines can be found from its trace and the other way round. Used only
 * when tracing is on.
 */
export class TraceContextLogger extends ConsoleLogger {
  protected override getJsonLogObject(message: unknown, options: JsonLogOptions) {
    const entry = super.getJsonLogObject(message, options);
    const span = trace.getActiveSpan()?.spanContext();
    if (span !== undefined) {
      entry.traceId = span.traceId;
      entry.spanId = span.spanId;
    }
    return entry;
  }
}
