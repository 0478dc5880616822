/** The typed client of the listmatch HTTP API: `import { ListmatchClient } from 'listmatch/client'`. */
export type { paths } from './api-types.ts';
export {
  type ErrorKind,
  errorKindOf,
  type JobStatus,
  ListmatchClient,
  type ListmatchClientOptions,
  ListmatchError,
  type OnboardingParams,
  type PollAnswer,
  type PollProgress,
  type RegistrationAnswer,
  type SmartmatchParams,
  type UploadBody,
} from './listmatch-client.ts';
