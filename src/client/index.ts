/** The typed client of the listmatch HTTP API: `import { ListmatchClient } from 'listmatch/client'`. */
export type { paths } from './api-types.ts';
export {
  type DataEnhanceAnswer,
  type DataEnhanceParams,
  type EmailSearchAnswer,
  type ErrorKind,
  errorKindOf,
  type JobStatus,
  ListmatchClient,
  type ListmatchClientOptions,
  ListmatchError,
  type OnboardingParams,
  type PhoneSearchAnswer,
  type PollAnswer,
  type PollProgress,
  type RadiusSearchAnswer,
  type RadiusSearchParams,
  type RegistrationAnswer,
  type RegistrationCheckAnswer,
  type RegistrationCheckParams,
  type SmartmatchParams,
  type UploadBody,
} from './listmatch-client.ts';
