import { z } from 'zod';
import { adAccountParam, emailParam, nameParam, single } from './common.ts';

/** Query of `GET /service/onboarding` (spec §2.1). */
export const onboardingQuerySchema = z
  .object({
    platform: single('platform')
      .transform((value) => value.trim().toLowerCase())
      .pipe(z.enum(['social', 'politicaldsp'], 'platform must be social or politicaldsp')),
    audience: nameParam('audience', 50),
    status_email: emailParam('status_email'),
    social_adid: adAccountParam('social_adid').optional(),
    owner_adid: adAccountParam('owner_adid').optional(),
  })
  .superRefine(
    (query, ctx) => {
      if (query.platform === 'social' && query.social_adid === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['social_adid'],
          message: 'social_adid is required when platform is social',
        });
      }
      if (query.platform === 'politicaldsp' && query.owner_adid !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['owner_adid'],
          message: 'owner_adid applies only to platform social',
        });
      }
    },
    { when: () => true },
  );

export type OnboardingQuery = z.infer<typeof onboardingQuerySchema>;
