import { testInfra, TEST_SERVICE_VARIABLES } from '@homing/testing';
import libraryGlobalSetup from '../../libs/testing/src/global-setup';
import { BACKEND_SERVICES } from './stack';
import { createStackTemplate, STACK_TEMPLATE_VARIABLE } from './stack-template';

/**
 * Global setup of the tiers that start stacks (e2e, web-e2e): the services as libs/testing finds them, then the
 * migrated database each stack copies. Workers start after this and inherit the variable.
 */
export default async function stackGlobalSetup(): Promise<void> {
  await libraryGlobalSetup();
  if (!TEST_SERVICE_VARIABLES.every((name) => process.env[name])) return; // testInfra() explains in the tests.
  process.env[STACK_TEMPLATE_VARIABLE] = await createStackTemplate(testInfra(), BACKEND_SERVICES);
}
