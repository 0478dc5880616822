import { storageFullOr } from '../domain/errors.ts';

/**
 * `port` with every method's failure for a full disk or quota (SQLITE_FULL, PostgreSQL's
 * disk_full, ENOSPC) turned into AppError STORAGE_FULL, which every route answers as the
 * service's 500 ("Internal Error: the service's storage is full") instead of a generic one; other
 * failures pass unchanged. For the metadata ports, whose SQL runners hand on the drivers' errors.
 */
export function reportingStorageFull<T extends object>(port: T): T {
  return new Proxy(port, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          result = value.apply(target, args);
        } catch (error) {
          throw storageFullOr(error);
        }
        return result instanceof Promise
          ? result.catch((error: unknown) => {
              throw storageFullOr(error);
            })
          : result;
      };
    },
  });
}
