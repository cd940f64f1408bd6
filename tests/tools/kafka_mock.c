/* kafka_mock: librdkafka's mock cluster on loopback, for tests.
 *
 *   kafka_mock [--brokers N] [TOPIC:PARTITIONS ...]
 *
 * Starts N (default 1) mock brokers (rdkafka_mock.h), creates the topics,
 * prints the bootstrap list as its first line on stdout, and stays up until
 * standard input closes or SIGINT / SIGTERM. Commands on standard input, one
 * a line, each answered by a line `ok` or `error: ...` on stdout:
 *
 *   topic NAME PARTITIONS         create a topic
 *   down BROKER_ID | up BROKER_ID a broker goes down / comes back (ids 1..N)
 *   errors API_KEY ERROR_CODE COUNT
 *                                 the next COUNT requests of that API key (1
 *                                 Fetch, 8 OffsetCommit, 9 OffsetFetch, 3
 *                                 Metadata, 0 Produce) fail with that Kafka
 *                                 error code (e.g. 6 NOT_LEADER_FOR_PARTITION,
 *                                 7 REQUEST_TIMED_OUT, 15 COORDINATOR_NOT_AVAILABLE)
 *   clear                         drop queued request errors
 *
 * The mock keeps only the newest few MB of each partition (measured: of
 * 1,000,000 JSON records of ~65 bytes produced into 6 partitions it kept 43%,
 * the low watermarks moved up): spread large volumes over many partitions.
 */
#include <errno.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t g_stop = 0;
static void on_signal(int sig) {
  (void)sig;
  g_stop = 1;
}

static int create_topic(rd_kafka_mock_cluster_t *mc, const char *name, int partitions) {
  rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(mc, name, partitions, 1);
  if (err) {
    printf("error: topic %s: %s\n", name, rd_kafka_err2str(err));
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  int brokers = 1;
  int first = 1;
  if (argc > 2 && strcmp(argv[1], "--brokers") == 0) {
    brokers = atoi(argv[2]);
    first = 3;
    if (brokers < 1 || brokers > 16) {
      fprintf(stderr, "kafka_mock: --brokers: 1..16\n");
      return 2;
    }
  }
  char errstr[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  /* The host handle does nothing but own the cluster. */
  if (rd_kafka_conf_set(conf, "log_level", "0", errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
    fprintf(stderr, "kafka_mock: %s\n", errstr);
    return 1;
  }
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
  if (!rk) {
    fprintf(stderr, "kafka_mock: %s\n", errstr);
    return 1;
  }
  rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(rk, brokers);
  if (!mc) {
    fprintf(stderr, "kafka_mock: cannot start the mock cluster\n");
    return 1;
  }
  for (int i = first; i < argc; ++i) {
    char name[256];
    int parts = 1;
    const char *colon = strrchr(argv[i], ':');
    size_t len = colon ? (size_t)(colon - argv[i]) : strlen(argv[i]);
    if (len == 0 || len >= sizeof(name)) {
      fprintf(stderr, "kafka_mock: bad topic '%s' (TOPIC:PARTITIONS)\n", argv[i]);
      return 2;
    }
    memcpy(name, argv[i], len);
    name[len] = 0;
    if (colon) parts = atoi(colon + 1);
    if (parts < 1) {
      fprintf(stderr, "kafka_mock: bad partition count in '%s'\n", argv[i]);
      return 2;
    }
    if (create_topic(mc, name, parts) != 0) return 1;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  printf("%s\n", rd_kafka_mock_cluster_bootstraps(mc));
  fflush(stdout);

  char line[1024];
  while (!g_stop && fgets(line, sizeof(line), stdin) != NULL) {
    char cmd[64] = {0}, arg[512] = {0};
    int a = 0, b = 0, c = 0;
    if (sscanf(line, "%63s", cmd) != 1) continue;
    if (strcmp(cmd, "topic") == 0 && sscanf(line, "%*s %511s %d", arg, &a) == 2) {
      if (create_topic(mc, arg, a) == 0) printf("ok\n");
    } else if ((strcmp(cmd, "down") == 0 || strcmp(cmd, "up") == 0) && sscanf(line, "%*s %d", &a) == 1) {
      rd_kafka_resp_err_t err = cmd[0] == 'd' ? rd_kafka_mock_broker_set_down(mc, a) : rd_kafka_mock_broker_set_up(mc, a);
      if (err) printf("error: %s\n", rd_kafka_err2str(err));
      else printf("ok\n");
    } else if (strcmp(cmd, "errors") == 0 && sscanf(line, "%*s %d %d %d", &a, &b, &c) == 3 && c > 0 && c <= 1000) {
      rd_kafka_resp_err_t errs[1000];
      for (int i = 0; i < c; ++i) errs[i] = (rd_kafka_resp_err_t)b;
      rd_kafka_mock_push_request_errors_array(mc, (int16_t)a, (size_t)c, errs);
      printf("ok\n");
    } else if (strcmp(cmd, "clear") == 0) {
      for (int k = 0; k < 70; ++k) rd_kafka_mock_clear_request_errors(mc, (int16_t)k);
      printf("ok\n");
    } else {
      printf("error: unknown command: %s", line);
    }
    fflush(stdout);
  }
  rd_kafka_mock_cluster_destroy(mc);
  rd_kafka_destroy(rk);
  return 0;
}
