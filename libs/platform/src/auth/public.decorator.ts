import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_KEY = 'homing:public';

/**
 * Marks a route (or a controller) as open to anonymous callers. Every other route of the gateway requires a valid,
 * unrevoked access token: the guard is global, so a route nobody marked is protected, never open by accident.
 */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC_KEY, true);
