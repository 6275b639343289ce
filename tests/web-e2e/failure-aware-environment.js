// Jest's node environment, telling the browser helpers (browser.ts) whether the running test has failed, so that
// after a failure they can say what the browser saw (its pages, their errors and the API's error answers) before
// closing it. jest-circus reports a test's failure before its afterEach hooks run.
const { TestEnvironment } = require('jest-environment-node');

class FailureAwareEnvironment extends TestEnvironment {
  async handleTestEvent(event) {
    if (event.name === 'test_start') this.global.__webE2eTestFailed = false;
    if (event.name === 'test_fn_failure' || event.name === 'hook_failure') this.global.__webE2eTestFailed = true;
  }
}

module.exports = FailureAwareEnvironment;
