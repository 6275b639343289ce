import type { INestApplicationContext } from '@nestjs/common';
import { EXCEPTION_FILTERS_METADATA, GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { RpcRequest, RpcResponse, RpcSubject } from '@homing/contracts';

/** What a handler of subject S must be: it takes S's request and answers S's response. */
export type RpcHandlerOf<S extends RpcSubject> = (request: RpcRequest<S>) => Promise<RpcResponse<S>>;

/** Each subject a service answers and its handler, bound to its controller: what NatsRpcServer calls. */
export type RpcHandlers = ReadonlyMap<RpcSubject, (request: never) => Promise<unknown>>;

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

// The subject each decorated method answers (the method's function, as its class's prototype holds it).
const subjects = new WeakMap<object, RpcSubject>();

/**
 * Declares the method as the handler of an RPC subject (`<service>.rpc.<verb>`) and ties its types to the subject:
 * the request it takes and the response it answers must be the subject's in `RpcMap`, so a swapped pair does not
 * compile. The server validates each request against the same contract, then calls the method with it, on the
 * controller instance Nest made (`rpcHandlersOf`).
 */
export function RpcHandler<S extends RpcSubject>(subject: S) {
  return <M>(_target: object, _key: string | symbol, descriptor: TypedPropertyDescriptor<M & CheckedHandler<S, M>>): void => {
    if (typeof descriptor.value === 'function') subjects.set(descriptor.value, subject);
  };
}

/** The subject a method was declared the handler of (`@RpcHandler`), if any. */
export function rpcSubjectOf(method: unknown): RpcSubject | undefined {
  return typeof method === 'function' ? subjects.get(method) : undefined;
}

// Nest's per-handler enhancers and parameter decorators: none of them runs for an RPC handler.
const ENHANCERS = [GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA, EXCEPTION_FILTERS_METADATA];

/**
 * Every `@RpcHandler` method of the application's controllers, bound to its instance, by subject. The transport calls
 * these straight, without Nest's RPC proxy, its execution context and the Observable it makes of every answer (a
 * tenth of a small RPC's CPU, `docs/benchmarks.md`, stop 82): what Nest's pipeline would add, the transport does
 * itself (validation against RpcMap, the request's context and span, load shedding, timing, error answers).
 * Handlers a controller inherits count as its own. Start-up fails on what would otherwise be ignored in silence: a
 * subject answered twice, a handler or its controller carrying a guard, interceptor, pipe, exception filter or
 * parameter decorator, or a handler on a request-scoped controller.
 */
export function rpcHandlersOf(app: INestApplicationContext): RpcHandlers {
  const handlers = new Map<RpcSubject, (request: never) => Promise<unknown>>();
  const declaredIn = new Map<RpcSubject, string>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      if (!wrapper.metatype) continue;
      const controller = wrapper.metatype as { name: string; prototype: object };
      for (const [key, method] of methodsOf(controller.prototype)) {
        const subject = rpcSubjectOf(method);
        if (!subject) continue;
        const where = `${controller.name}.${key}`;
        // One instance answers every request: a request-scoped controller has none to bind to.
        const instance: unknown = wrapper.instance;
        if (!instance || !wrapper.isDependencyTreeStatic()) throw new Error(`${where} (${subject}) is on a controller without one shared instance`);
        const enhanced = ENHANCERS.some((metadata) => Reflect.hasMetadata(metadata, method) || Reflect.hasMetadata(metadata, controller)) || Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, key) !== undefined;
        if (enhanced) throw new Error(`${where} (${subject}) carries a Nest enhancer or parameter decorator, which RPC handlers never run`);
        const first = declaredIn.get(subject);
        if (first) throw new Error(`${subject} is answered twice: by ${first} and ${where}`);
        declaredIn.set(subject, where);
        handlers.set(subject, method.bind(instance));
      }
    }
  }
  return handlers;
}

/** A class's methods by name, inherited ones included, each as the most derived class defines it (no getters run). */
function methodsOf(prototype: object): Map<string, (request: never) => Promise<unknown>> {
  const methods = new Map<string, (request: never) => Promise<unknown>>();
  for (let level: object | null = prototype; level && level !== Object.prototype; level = Object.getPrototypeOf(level) as object | null) {
    for (const key of Object.getOwnPropertyNames(level)) {
      const value: unknown = Object.getOwnPropertyDescriptor(level, key)?.value;
      if (key !== 'constructor' && !methods.has(key) && typeof value === 'function') methods.set(key, value as (request: never) => Promise<unknown>);
    }
  }
  return methods;
}
