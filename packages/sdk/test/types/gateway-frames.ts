// The SDK's frame types against the gateway's own (src/realtime/frames.ts, src/orders/order-events.ts): each
// line stops compiling when a frame's name or shape changes on one side only (checked by frames.spec.ts).
import type { DomainEventType } from '../../../../src/events/domain-events.js';
import type { OrderEventPayload } from '../../../../src/orders/order-events.js';
import type {
  ClientFrame as GatewayClientFrame,
  ServerFrame as GatewayServerFrame,
} from '../../../../src/realtime/frames.js';
import type { ClientFrame, OrderFrameData, ServerFrame } from '../../src/index.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The `data` of the frames of a union whose `type` includes T. */
type DataOf<U, T> = U extends { type: infer K; data: infer D } ? (T extends K ? D : never) : never;
/** A client frame as the gateway reads it: `data`'s fields beside `type`. */
type Parsed<F> = F extends { type: infer K; data: infer D } ? { type: K } & D : F;

type GatewayFrameType = Exclude<GatewayServerFrame['type'], DomainEventType>;
type SdkEventType = Exclude<ServerFrame['type'], GatewayFrameType>;

export const checks = {
  clientFrames: true satisfies Same<Parsed<ClientFrame>, GatewayClientFrame>,
  serverFrameNames: true satisfies Same<GatewayFrameType, Exclude<ServerFrame['type'], SdkEventType>>,
  eventFramesAreEvents: true satisfies Same<Exclude<SdkEventType, DomainEventType>, never>,
  message: true satisfies Same<DataOf<GatewayServerFrame, 'message'>, DataOf<ServerFrame, 'message'>>,
  pong: true satisfies Same<DataOf<GatewayServerFrame, 'pong'>, DataOf<ServerFrame, 'pong'>>,
  auth: true satisfies Same<DataOf<GatewayServerFrame, 'auth'>, DataOf<ServerFrame, 'auth'>>,
  error: true satisfies Same<DataOf<GatewayServerFrame, 'error'>, DataOf<ServerFrame, 'error'>>,
  subscribed: true satisfies Same<
    DataOf<GatewayServerFrame, 'subscribed'>,
    DataOf<ServerFrame, 'subscribed'>
  >,
  unsubscribed: true satisfies Same<
    DataOf<GatewayServerFrame, 'unsubscribed'>,
    DataOf<ServerFrame, 'unsubscribed'>
  >,
  orderFields: true satisfies Same<keyof OrderEventPayload['order'], Exclude<keyof OrderFrameData, 'user'>>,
  orderOwner: true satisfies Same<OrderEventPayload['user'], NonNullable<OrderFrameData['user']> | null>,
};
