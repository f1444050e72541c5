using EtwSerializerProfiler.Common;
using Xunit;

namespace EtwSerializerProfiler.Tests.Contracts;

public class FmtTests
{
    [Theory]
    [InlineData(0.123, "12%")]
    [InlineData(0, "0%")]
    [InlineData(-0.004, "0%")] // printed "-0%" before
    [InlineData(-0.006, "-1%")]
    public void PctNeverPrintsANegativeZero(double fraction, string expected) => Assert.Equal(expected, Fmt.Pct(fraction));

    [Theory]
    [InlineData(0.125, "+12.5%")]
    [InlineData(-0.004, "-0.4%")]
    [InlineData(-0.0001, "0.0%")]
    [InlineData(0, "0.0%")]
    public void SignedPercentSignsOnlyWhatPrintsAsNonZero(double fraction, string expected) => Assert.Equal(expected, Fmt.SignedPercent(fraction));

    [Theory]
    [InlineData(-0.0004, "0.000")]
    [InlineData(0.0004, "0.000")]
    [InlineData(-0.0123, "-0.012")]
    [InlineData(2.5, "+2.50")]
    public void SignedMagnitudeTakesNoSignWhenItPrintsAsZero(double v, string expected) => Assert.Equal(expected, Fmt.Signed(v, Fmt.Ms(Math.Abs(v))));
}
