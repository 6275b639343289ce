import { MessagePattern } from '@nestjs/microservices';
import type { RpcRequest, RpcResponse, RpcSubject } from '@homing/contracts';

/** What a handler of subject S must be: it takes S's request and answers S's response. */
export type RpcHandlerOf<S extends RpcSubject> = (request: RpcRequest<S>) => Promise<RpcResponse<S>>;

// Method parameters are compared both ways by TypeScript, so a method taking another subject's request could
// still fit RpcHandlerOf<S>. Requiring the request type to match exactly, both ways, closes that gap.
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type CheckedHandler<S extends RpcSubject, M> = M extends (request: infer Request) => Promise<infer Response>
  ? Exactly<Request, RpcRequest<S>> extends true
    ? Exactly<Response, RpcResponse<S>> extends true
      ? M
      : { error: 'the handler answers another response than its subject'; subject: S }
    : { error: 'the handler takes another request than its subject'; subject: S }
  : { error: 'an RPC handler takes one request and returns a promise of its response'; subject: S };

/**
 * Declares the method as the handler of an RPC subject (`<service>.rpc.<verb>`) and ties its types to the subject:
 * the request it takes and the response it answers must be the subject's in `RpcMap`, so a swapped pair does not
 * compile. The server validates each request against the same contract before the handler runs.
 */
export function RpcHandler<S extends RpcSubject>(subject: S) {
  return <M>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M & CheckedHandler<S, M>>): void => {
    MessagePattern(subject)(target, key, descriptor);
  };
}
