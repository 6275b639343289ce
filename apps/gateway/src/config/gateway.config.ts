import { isIP } from 'node:net';
import { z } from 'zod';
import { baseEnvSchema, envSchemas, loadConfig, redisEnvSchema } from '@homing/platform';

// One address or CIDR block per entry; anything else would silently trust nobody (or everybody).
const trustedProxies = z
  .string()
  .default('')
  .transform((value) => value.split(',').map((entry) => entry.trim()).filter(Boolean))
  .refine((entries) => entries.every((entry) => isIP(entry.split('/')[0]) !== 0), 'a comma-separated list of IP addresses or CIDR blocks');

// A comment line this often keeps proxies and load balancers from closing an idle stream (they commonly allow 30–60 s).
export const DEFAULT_SSE_HEARTBEAT_MS = 15_000;

const gatewayEnvSchema = baseEnvSchema.extend(redisEnvSchema.shape).extend({
  PORT: envSchemas.port.default(8080),
  PUBLIC_URL: envSchemas.urlWithProtocol(['http:', 'https:']).default('http://localhost:8080'),
  /** The built web app (dist/apps/web); when set, the gateway serves it with an SPA fallback. */
  WEB_DIST: z.string().min(1).optional(),
  /** Identity's public key (PEM) that access tokens are verified with. */
  JWT_PUBLIC_KEY: z.string().refine((value) => value.includes('-----BEGIN PUBLIC KEY-----'), 'must be a PEM public key'),
  /** While keys rotate: the key tokens were signed with before, still accepted until they expire (docs/operations.md). */
  JWT_PREVIOUS_PUBLIC_KEY: z.string().refine((value) => value.includes('-----BEGIN PUBLIC KEY-----'), 'must be a PEM public key').optional(),
  /**
   * Proxies (load balancers, ingress) whose `X-Forwarded-For` is believed. Rate limits key on the client address;
   * from anyone else the header is ignored, so a client cannot forge its way past them.
   */
  TRUSTED_PROXIES: trustedProxies,
  /** Tag scans kept in memory per replica (least recently used dropped first); 0 turns the cache off. */
  SCAN_CACHE_MAX_ITEMS: z.coerce.number().int().min(0).default(50_000),
  /** Milliseconds between the comment lines that keep an idle server-sent event stream open. */
  SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).max(60_000).default(DEFAULT_SSE_HEARTBEAT_MS),
  /**
   * Message streams one client address may hold open at once, across every replica; beyond it a new stream answers
   * 429 (the open ones are untouched). Generous for a household behind one address, tight for a flood.
   */
  STREAMS_PER_ADDRESS: z.coerce.number().int().min(1).max(10_000).default(20),
  /** The e-mail relay's domain: a tag's public answer names its address there (`tag-{code}@…`). */
  RELAY_DOMAIN: envSchemas.relayDomain.default('relay.localhost'),
});

export type GatewayConfig = z.infer<typeof gatewayEnvSchema>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(gatewayEnvSchema, env);
}
