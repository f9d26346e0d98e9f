export * from './start-tracing';
export * from './trace-context';
export * from './file-span-exporter';
