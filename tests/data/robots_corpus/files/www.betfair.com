<!DOCTYPE html>
<html class="yui3-js-enabled" lang="pt-BR"><head>
<meta http-equiv="content-type" content="text/html; charset=UTF-8">
		<meta charset="utf-8">
		<title>
			Why can I not place bets on Betfair		</title>
		<meta http-equiv="X-UA-Compatible" content="IE=edge,chrome=1">

		

<style type="text/css">
.rn_ScreenReaderOnly{position:absolute; height:1px; left:-10000px; overflow:hidden; top:auto; width:1px;}
.rn_Hidden{display:none;}
</style>

<link href="//cache.cdnbf.net/centerzapomoc/help_files/standard.css" rel="stylesheet" type="text/css" media="all">
<style type="text/css">.rn_NavigationTab{display:inline-block;}
.rn_NavigationTab a{cursor:pointer;float:left;font-size:1em;font-weight:bold;height:20px;_height:18px;margin-right:4px;padding:5px 20px;position:relative;}
.rn_NavigationTab .rn_DropDown{padding-right:28px;}
.rn_NavigationTab a em{display:block;font-size:xx-small;margin:4px 5px 0 0;position:absolute;right:0;top:0;}
.rn_NavigationTab .rn_SubNavigation{display:block;float:none;position:absolute;z-index:1;width:150px;}
.rn_NavigationTab .rn_SubNavigation.rn_Hidden, .rn_NavigationTab.rn_Hidden{display:none;}
.rn_NavigationTab .rn_SubNavigation a{display:block;float:none;margin:0;padding:5px 0 0 10px;width:140px;}
.rn_NavigationTab{margin:0px!important;padding:0px!important;}
.rn_NavigationTab a{background:#363636;color:#ffffff;text-decoration:none;font-size:12px;float:none!important;display:block;padding: 10px 15px!important;margin:0px!important;}
.rn_NavigationTab a:hover, .rn_NavigationTab a:focus{background:#585858;color:#ffffff;}
.rn_NavigationTab a:focus{outline:thin dotted #FFF;}
.rn_NavigationTab a.rn_SelectedTab, .rn_NavigationTab a.rn_SelectedTab em{background:#585858;color:#ffffff;}
.rn_NavigationTab a em{font-size:8px;color:#000;height:15px;padding-left: 4px;width:12px;}
.rn_NavigationTab a:hover em, .rn_NavigationTab a:focus em{background:#FFF;background:-moz-linear-gradient(top, #FFF 0%, #D1D1D1 100%);background:-ms-linear-gradient(top, #FFF 0%, #D1D1D1 100%);background:-webkit-gradient(linear, 0% 0%, 0% 100%, color-stop(0.2, #FFF), color-stop(1.0, #FFF));background:-webkit-linear-gradient(top, #FFF 0%, #D1D1D1 100%);}
.rn_NavigationTab .rn_SubNavigation{background:#FFF;border:1px solid #CCC;padding:10px 0 0;top:100px;}
.rn_NavigationTab .rn_SubNavigation a{background:#FFF;filter: progid:DXImageTransform.Microsoft.gradient(enabled = false);border:none;color:#404040;height:auto !important;height:23px;margin-bottom:1px;min-height:23px;text-transform:none;}
.rn_NavigationTab .rn_SubNavigation a:hover{background:#EEE;}
.rn_NavigationTab .rn_SubNavigation a:focus{outline:thin dotted #777;}
.rn_ServiceAnnouncement{}
.rn_ServiceAnnouncement{}
.rn_SimpleSearch{position:relative;}
.rn_SimpleSearch .rn_SearchField{width:97%;}
.rn_SimpleSearch .rn_SearchImage{border:none;padding:0;position:absolute;right:0.2em;top:0.46em;*right:0.28em;*top:0.6em;}
.rn_SimpleSearch{max-width:400px;width:230px!important;}
.rn_SimpleSearch form{background-color:#FFF;}
.rn_SimpleSearch .rn_SearchField{border:0px none;color:#666966;font-weight:normal;font-size: 12px!important;height:1.8em;padding:8px 4px 8px 8px;width:96%;border:1px solid #dde0e0;overflow:hidden;}
.rn_SimpleSearch .rn_SearchImage{right: 0.5em!important;top: 0.7em!important;}
.rn_SearchInput{position:relative;float: right;right:0}
.rn_SimpleSearch input[type="text"]:focus{color:#1e1e1e!important;}
</style>
<link href="//cache.cdnbf.net/centerzapomoc/help_files/detail.css" rel="stylesheet" type="text/css" media="all">


	
		
		<link rel="stylesheet" href="//cache.cdnbf.net/centerzapomoc/help_files/jquery.css">			
		

	</head>
	
	<body id="yui_3_7_2_6_1445602378516_7" class="yui-skin-sam yui3-skin-sam"><div></div><p style="display:inline"><input id="rn_VirtualBufferUpdateTrigger" name="rn_VirtualBufferUpdateTrigger" value="1" type="hidden"></p>
		<div id="rn_Container">		
			<div class="full_width bgheader">
				<div class="rn_Container">

					<div id="rn_Header" role="banner">
						<noscript>
							<h1>This script must be activated in order to be used on this site.</h1>
						</noscript>
						<div id="rn_Logo"><a href="https://www.betfair.com/"> <img src="//cache.cdnbf.net/centerzapomoc/help_files/betfair-logoNew.png"> <!--<span class="rn_LogoTitle">Suporte <span class="rn_LogoTitleMinor">Centro</span></span>--></a></div>
						<!--<div id="rn_Logo">
							<a href="/app/home/session/L2F2LzEvdGltZS8xNDQ1NjAyMzU4L3NpZC9nenllQkZ6bQ=="></a>
                        </div>-->
						<!--<div id="rn_LoginStatus">
							<rn:condition logged_in="true">
								<rn:widget path="login/LogoutLink"/>
								<rn:condition_else />
								<rn:condition config_check="(372) == true">
									<a href="javascript:void(0);" id="rn_LoginLink"></a><a href="javascript:void(0);"></a>
									<rn:condition_else>
										<a href="javascript:void(0);" id="rn_LoginLink">Conecte-Se</a>&nbsp;|&nbsp;<a href="/app/utils/create_account/session/L2F2LzEvdGltZS8xNDQ1NjAyMzU4L3NpZC9nenllQkZ6bQ==">Inscrever-Se</a>
										<rn:condition hide_on_pages="utils/create_account, utils/login_form, utils/account_assistance">
											<rn:widget path="login/LoginDialog" trigger_element="rn_LoginLink"/>
										</rn:condition>
										<rn:condition show_on_pages="utils/create_account, utils/login_form, utils/account_assistance">
											<rn:widget path="login/LoginDialog" trigger_element="rn_LoginLink" redirect_url="/app/account/overview"/>
										</rn:condition>
								</rn:condition>
							</rn:condition>
						</div>-->
					</div>
				</div>
			</div>
			<div class="full_width bgNavigation movebottm10">
				<div class="rn_Container">
					<div id="rn_Navigation">
					
					
												
						
							<div id="rn_NavigationBar" role="navigation">
								<ul>
									
								</ul>
							</div>							
											</div>
				</div>
			</div>
			<div class="scroller_anchor"></div> 
			<div style="display: none;" class="AnouncmentCotainer"><div id="Anouncment" class="scroller" style="position: relative ! important; display: none;">
		<div class="rn_Container">
			<span id="rn_ServiceAnnouncement_4_IconClose" class="icoclose"></span>
			<h3></h3>
			     <div id="rn_ServiceAnnouncement_4_Content" class="rn_Content">  
           <div style="width: 0px;" id="trimText">  
                             
                <span style="width: 0px;" class="rn_Element2">					
				</span>               
                <span class="rn_Element3"></span>
             
           
		   </div>
           </div>
		</div>
  </div>
</div>
			<!-- Passing Annoucement key session data to javascript variable
                isAnnouncement variable accessed by service announcement widget (logic.js)
			 --> 
			<script type="text/javascript">	
			     var isAnnouncement;
			     isAnnouncement="false";
		    </script>
			
			<div class="full_width movebottm20">
				
				<div class="rn_Container" style="height:28px">	
				<div class="betairTitle">
					<h3>Betfair Help Center</h3>
				</div>
											<div class="rn_SearchInput" role="search" style="position:relative;">
							<!-- <rn:widget path="search/SimpleSearch" label_hint="Search for help...." report_page_url=""/> -->
							<div id="rn_SimpleSearch_5" class="rn_SimpleSearch">

</div>
						</div>
									</div>
				
			</div>
			<div class="full_width movebottm50">
				<div class="rn_Container">
					<div id="rn_Body">
					
						<div style="width: 74.5%; margin-right: 8px; min-height: 100%;" id="rn_MainColumn" role="main">
							<a id="rn_MainContent"></a>
							

<div id="rn_PageTitle" class="rn_AnswerDetail">
    <h1 id="rn_Summary">Why can I not place bets on Betfair?</h1>
</div>
<div id="rn_PageContent" class="rn_AnswerDetail">
    <div id="rn_AnswerText">
        <p>Our Software detects that you may be accessing the Betfair website from a country that Betfair does not accept bets from. If you believe that this detection has occurred in error, please Contact us for further assistance.<br>
<p><br></p>    </div>
        <div id="rn_FileAttach">
        
    </div>
	<div id="rn_Detail">
		<div id="rn_AnswerFeedbackV1_9" class="rn_AnswerFeedbackV1 rn_AnswerFeedback">
        
        <div id="rn_AnswerFeedbackV1_9_AnswerFeedbackForm" class="rn_AnswerFeedbackForm rn_Hidden">
        <div id="rn_AnswerFeedbackV1_9_DialogDescription" class="rn_DialogSubtitle">Your rating has been sent. Tell us how we can make this answer more useful.</div>
        <div id="rn_AnswerFeedbackV1_9_ErrorMessage"></div>
        <form>
                    <label for="rn_AnswerFeedbackV1_9_EmailInput">E-mail<span class="rn_ScreenReaderOnly">Required</span></label>
            <input id="rn_AnswerFeedbackV1_9_EmailInput" class="rn_EmailField" type="text">
                <label for="rn_AnswerFeedbackV1_9_FeedbackTextarea">Your feedback<span class="rn_ScreenReaderOnly">Required</span></label>
        <textarea id="rn_AnswerFeedbackV1_9_FeedbackTextarea" class="rn_Textarea" rows="4" cols="60"></textarea>
        </form>
    </div>
    </div>
		<!--<rn:widget path="feedback/AnswerFeedback2" threshold="3" label_dialog_title="Fornecer Informações Adicionais" label_dialog_description="Sua classificação foi enviada. Informe-nos como podemos tornar esta resposta mais útil." dialog_width="375px" options_count="5" label_title="How useful is this answer?" use_rank_labels="true" />-->
	</div>
    <br>
    <div id="rn_RelatedAnswers_10" class="rn_RelatedAnswers">
   
 
</div>
        <!--<div id="rn_DetailTools">
        <rn:widget path="utils/SocialBookmarkLink" />
        <rn:widget path="utils/PrintPageLink" />
        <rn:widget path="utils/EmailAnswerLink" />
        <rn:condition logged_in="true">
            <rn:widget path="notifications/AnswerNotificationIcon" />
        </rn:condition>
    </div>-->
    <!--    Based on the value from database make the telephone,chat etc visible or invisible
            Javascript logic for this is written in standard.php & mobile.php
     -->
    <div id="rn_telephone_visible" class="rn_Hidden">
            </div>
    <div id="rn_livechat_visible" class="rn_Hidden">
            </div>
    <div id="rn_aaq_visible" class="rn_Hidden">
        Sim    </div>
    <div id="rn_twitter_visible" class="rn_Hidden">
            </div>
	<div id="rn_telephoneOpeningHours" class="rn_Hidden">
        <span>1000</span>
    </div>
	<div id="rn_telephoneClosingHours" class="rn_Hidden">
        <span>2100</span>
    </div>
</div>
                          
						</div>
						
												<div id="rn_SideBar" role="navigation">					

						<div id="sidebarBtn">
													   <div class="contenttitle movetop15">Contact Options</div>
												   
							<!-- needsome -->
														<!--/ needsome -->
							<!--<div class="rn_Module"></div>-->
							
							
								<div class="rn_HelpResources">
																														<div style="display: block;" class="rn_Questions rn_emailus-icon">
												<a href="mailto:bets@betfair.com">Send an e-mail</a>
												<span>We will reply within 24 hours.</span>
											</div>
																																								<div style="display: none;" class="rn_Questions tweet-icon">
											<a href="https://twitter.com/BetfairHelpdesk" target="_blank">Send us a Tweet @BetfairHelpdesk</a>
										</div>
																										</div>
								

							
																				</div>
													</div>
											</div>
				</div>
			</div>
			<div class="full_width bgwhite movetop3" style="margin-bottom:-20px!important">
				<div class="rn_Container bgwhite">
					<div id="rn_Footer" role="contentinfo">
						
							<ul class="footerlink">
								<li><a href="http://www.betfair.com/aboutUs/Privacy.Policy/"> Privacy Policy </a> |</li>
								<li><a href="http://www.betfair.com/aboutUs/Cookie.Policy/"> Cookies Policy </a> |</li>
                                <li><a href="http://www.betfair.com/aboutUs/Rules.and.Regulations/"> Rules and Regulations </a> |</li>
                                <li><a href="http://www.betfair.com/aboutUs/Terms.and.Conditions/"> Terms and Conditions </a> |</li>

								<li><a href="http://content.betfair.com/misc/?product=portal&amp;sWhichKey=ResponsibleGambling&amp;brand=ALL_BRANDS&amp;region=GBR&amp;locale=pt">Play may become a defect. Play responsibly.</a> |</li>
								<li><a href="http://content.betfair.com/misc/?product=portal&amp;sWhichKey=gamCare&amp;locale=pt&amp;region=GBR&amp;brand=betfair&amp;entrydomain=betfair.com">Parental supervision</a></li>
							</ul>
							<ul class="foterlogo">
								<li><a href="http://www.betfair.com/"><div class="rn_footerLogo"></div></a></li>
								<li><a href="http://www.betfair.com/">©</a></li>
								<li><a href="http://www.betfair.com/">®</a></li>
							</ul>					
					</div>
				</div>
			</div>
		</div>
		
		
			



</body></html>