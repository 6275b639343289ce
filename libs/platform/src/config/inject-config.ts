import { Inject } from '@nestjs/common';

/** The token under which `PlatformModule.forService` provides the service's loaded config. */
export const SERVICE_CONFIG = Symbol('SERVICE_CONFIG');

/**
 * Injects the service's typed config, the one way every app hands its config to a provider:
 * `constructor(@InjectConfig() private readonly config: ItemsConfig)`. The type is the app's own; the value is
 * what its `load…Config()` returned at start-up, frozen.
 */
export const InjectConfig = (): ParameterDecorator => Inject(SERVICE_CONFIG);
