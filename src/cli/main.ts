import { enableModuleCompileCache } from '../start/compile-cache.ts';

enableModuleCompileCache();
// Imported after the compile cache is on: the cache covers only modules loaded after that, and
// with it a start skips stripping the types of every module (about 0.15-0.2 s of each command).
await import('./program.ts');
