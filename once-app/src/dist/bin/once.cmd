@echo off
rem The once command, from its distribution archive: needs only a JDK 17+ (JAVA_HOME or the PATH).
setlocal
set "ONCE_HOME=%~dp0.."
set "JAVA=java"
if defined JAVA_HOME set "JAVA=%JAVA_HOME%\bin\java"
"%JAVA%" %ONCE_JAVA_OPTS% -cp "%ONCE_HOME%\lib\*" dev.once.app.Main %*
