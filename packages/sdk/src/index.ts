export { createCommerceClient } from './client.js';
export { serializeQuery } from './query-string.js';
export type {
  ClientPaths,
  CommerceClient,
  CommerceClientOptions,
  DataOf,
  Schemas,
  UploadResult,
} from './client.js';
export { CommerceApiError } from './errors.js';
export type { ErrorEnvelope, ErrorsOf, FieldError } from './errors.js';
export { CLOSE_TOO_MANY_CONNECTIONS, CLOSE_UNAUTHORIZED } from './frames.js';
export type {
  Channel,
  ClientFrame,
  FrameError,
  OrderFrameData,
  ServerFrame,
  ServerFrameOf,
  ServerFrameType,
} from './frames.js';
export type { components, operations, paths } from './schema.js';
export { REFRESH_LOCK } from './session.js';
export type { Session } from './session.js';
export type {
  CommerceSocket,
  SocketOptions,
  SocketStatus,
  WebSocketConstructor,
  WebSocketLike,
} from './socket.js';
export { localStorageTokenStore, memoryTokenStore } from './tokens.js';
export type { SessionUser, Tokens, TokenStore } from './tokens.js';
