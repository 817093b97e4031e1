# The production image: the actiongate CLI fat jar on a JRE. Build the jar first, then the image:
#   mvn -B -Pdist -DskipTests package -pl cli -am
#   docker build -t registry.example.com/actiongate:0.1.0 .
# The Helm chart passes the command (`run --config ... --roles=gate`, `topics create ...`) as the container's args.
FROM eclipse-temurin:17-jre

# A fixed non-root uid/gid (the chart's podSecurityContext runs as 10001:10001) with no login shell and no home
# to write to: with a read-only root file system, /tmp (an emptyDir in the chart; RocksDB extracts its native
# library there) and the gate's state directory (a volume) are the only writable paths.
RUN groupadd --system --gid 10001 actiongate \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin actiongate \
 && mkdir -p /opt/actiongate /var/lib/actiongate/state \
 && chown 10001:10001 /var/lib/actiongate/state

COPY --chmod=0444 cli/target/actiongate-cli-*-all.jar /opt/actiongate/actiongate.jar

USER 10001:10001
WORKDIR /tmp
VOLUME ["/tmp", "/var/lib/actiongate/state"]
# JAVA_TOOL_OPTIONS (the chart's jvmOptions) adds heap and other JVM settings; ACTIONGATE_LOG_FORMAT=json switches
# to JSON logs. The gate's state directory is the config key state.dir (the chart sets /var/lib/actiongate/state).
EXPOSE 8080
ENTRYPOINT ["java", "-Djava.io.tmpdir=/tmp", "-jar", "/opt/actiongate/actiongate.jar"]
CMD ["--help"]
