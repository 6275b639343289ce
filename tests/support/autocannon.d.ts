// The part of autocannon 9's API the load tests use (the package ships no types, and its DefinitelyTyped package
// lags its major versions).
declare module 'autocannon' {
  interface RequestOptions {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    overallRate?: number;
    requests?: Array<RequestOptions & { setupRequest?: (request: RequestOptions) => RequestOptions }>;
  }
  interface Histogram {
    p50: number;
    p99: number;
    average: number;
  }
  interface Result {
    latency: Histogram;
    requests: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
    '5xx': number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
