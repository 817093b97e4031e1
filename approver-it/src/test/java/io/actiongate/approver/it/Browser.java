package io.actiongate.approver.it;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.openqa.selenium.virtualauthenticator.HasVirtualAuthenticator;
import org.openqa.selenium.virtualauthenticator.VirtualAuthenticator;
import org.openqa.selenium.virtualauthenticator.VirtualAuthenticatorOptions;

/**
 * Headless Debian Chromium through chromedriver (both from apt: {@code apt-get install -y chromium
 * chromium-driver}), with a fresh profile and a WebAuthn virtual authenticator that verifies the user, as a
 * platform passkey would.
 */
public final class Browser implements AutoCloseable {

    public static final String CHROMIUM = "/usr/bin/chromium";
    public static final String CHROMEDRIVER = "/usr/bin/chromedriver";

    public final ChromeDriver driver;
    public final VirtualAuthenticator authenticator;
    private final Path profile;

    /** Whether Debian's chromium and chromium-driver are installed. */
    public static boolean available() {
        return Files.isExecutable(Path.of(CHROMIUM)) && Files.isExecutable(Path.of(CHROMEDRIVER));
    }

    public static String missingMessage() {
        return "real-browser tests need Debian's chromium and chromium-driver: "
                + "apt-get update && apt-get install -y chromium chromium-driver";
    }

    public Browser() throws Exception {
        profile = Files.createTempDirectory("approver-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                "--window-size=1200,2600", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
        authenticator = ((HasVirtualAuthenticator) driver).addVirtualAuthenticator(new VirtualAuthenticatorOptions()
                .setProtocol(VirtualAuthenticatorOptions.Protocol.CTAP2)
                .setTransport(VirtualAuthenticatorOptions.Transport.INTERNAL)
                .setHasResidentKey(true)
                .setHasUserVerification(true)
                .setIsUserVerified(true)
                .setIsUserConsenting(true));
    }

    /**
     * A wait on this browser's pages. A page that navigates (a form posted, a redirect) between finding an element
     * and reading it leaves a stale reference; the wait looks again rather than failing on it.
     */
    public WebDriverWait waitUpTo(Duration timeout) {
        WebDriverWait wait = new WebDriverWait(driver, timeout);
        wait.ignoring(StaleElementReferenceException.class);
        return wait;
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            try (var files = Files.walk(profile)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (java.io.IOException e) {
                // a temporary profile left behind is harmless
            }
        }
    }
}
