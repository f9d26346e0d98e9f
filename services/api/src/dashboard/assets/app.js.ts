import { ACCOUNT_JS } from './script/account';
import { CORE_JS } from './script/core';
import { JOBS_JS } from './script/jobs';
import { KEYS_JS } from './script/keys';
import { MAIN_JS } from './script/main';
import { WEBHOOKS_JS } from './script/webhooks';

/**
 * The dashboard's script, served at /dashboard/app.js (the CSP allows scripts from this origin
 * only, never inline). The parts share one strict-mode function scope; main starts the page.
 */
export const DASHBOARD_JS = ['(function () {', "'use strict';", CORE_JS, ACCOUNT_JS, KEYS_JS, WEBHOOKS_JS, JOBS_JS, MAIN_JS, '})();', ''].join('\n');
