import { configSection, loadConfig } from '@upscaler/config';
import { jobsConfig, type JobSettings } from '../src/jobs.config';

/** The jobs' settings as a service would read them from `env` (the process-wide variables checked too). */
export const jobSettings = (env: NodeJS.ProcessEnv = {}): JobSettings => configSection(loadConfig(env, [jobsConfig]), jobsConfig);
