export * from './in-process-transport';
export * from './wait-for-catch-up';
