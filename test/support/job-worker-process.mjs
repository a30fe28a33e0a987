// An instance of the built service run as its own process by the job tests: it boots the application from
// BUILD_DIR with the configuration in APP_ENV (JSON), handles JOB_NAME by printing `started <id> <attempt>` and
// never finishing, and prints "ready" once up. The test kills it with SIGKILL while it holds the job.
import 'reflect-metadata';

const build = process.env.BUILD_DIR;
const { createApp } = await import(`${build}/src/app.js`);
const { loadConfig } = await import(`${build}/src/config/app-config.js`);
const { JobQueue } = await import(`${build}/src/jobs/job-queue.js`);

const app = await createApp(loadConfig(JSON.parse(process.env.APP_ENV)));
await app.listen(0, '127.0.0.1');
app.get(JobQueue).handle(process.env.JOB_NAME, async (_data, job) => {
  console.log(`started ${job.id} ${job.attempt}`);
  await new Promise(() => undefined);
});
console.log('ready');
